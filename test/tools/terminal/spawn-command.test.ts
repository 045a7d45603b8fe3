// spawnCommand on its own: exit, leftovers killed, kill shared and idempotent, spawn failures, and
// pipes held open by a process that left the group (setsid) closed after the drain.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isGroupAlive, waitGroupGone } from '../../../tools/terminal/lib/process-group.ts'
import { spawnCommand, type SpawnOptions } from '../../../tools/terminal/lib/spawn-command.ts'

function options (command: string, extra: Partial<SpawnOptions> = {}): SpawnOptions {
  return { command, cwd: tmpdir(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, maxOutputChars: 10_000, ...extra }
}

test('a command that exits: code, interleaved output, nothing left over, finished only once done', async () => {
  const proc = await spawnCommand(options('echo out; sleep 0.05; echo err >&2; exit 3'))
  assert.ok(proc.pid > 0)
  assert.equal(proc.finished, false)
  const exit = await proc.done
  assert.equal(proc.finished, true)
  assert.deepEqual(exit, { exitCode: 3, signal: null, leftoversKilled: false, pipesHeld: false, escapedKilled: 0 })
  assert.equal(proc.output.toString(), 'out\nerr\n')
  await proc.kill() // a no-op once finished
})

test('processes the shell leaves in its group are killed, and the exit says so', async (t) => {
  const proc = await spawnCommand(options('sleep 300 & echo started', { graceMs: 500 }))
  t.after(() => { try { process.kill(-proc.pid, 'SIGKILL') } catch {} })
  const exit = await proc.done
  assert.deepEqual(exit, { exitCode: 0, signal: null, leftoversKilled: true, pipesHeld: false, escapedKilled: 0 })
  assert.equal(await isGroupAlive(proc.pid), false)
})

test('kill is shared by concurrent callers, ends the group, and done waits for it', async (t) => {
  const proc = await spawnCommand(options('sleep 300 & sleep 300', { graceMs: 500 }))
  t.after(() => { try { process.kill(-proc.pid, 'SIGKILL') } catch {} })
  const first = proc.kill()
  assert.equal(proc.kill(), first, 'a second kill returns the kill under way')
  await first
  const exit = await proc.done
  assert.equal(exit.signal, 'SIGTERM')
  assert.equal(exit.exitCode, null)
  assert.equal(exit.leftoversKilled, false, 'killed on request, not as leftovers')
  assert.equal(await waitGroupGone(proc.pid, 1000), true)
})

test('a spawn that fails (missing cwd) rejects', async () => {
  await assert.rejects(spawnCommand(options('true', { cwd: join(tmpdir(), 'gw-no-such-dir-for-spawn') })), { code: 'ENOENT' })
})

test('a process that left the group and holds the pipes: done still resolves, with pipesHeld', async (t) => {
  try {
    execFileSync('/bin/sh', ['-c', 'command -v setsid'])
  } catch {
    t.skip('setsid(1) is not installed on this machine')
    return
  }
  const dir = await mkdtemp(join(tmpdir(), 'gw-spawn-'))
  const pidFile = join(dir, 'pid')
  t.after(async () => {
    try { process.kill(Number(await readFile(pidFile, 'utf8')), 'SIGKILL') } catch {}
    await rm(dir, { recursive: true, force: true })
  })
  const proc = await spawnCommand(options(`setsid sh -c 'echo $$ > ${pidFile}; exec sleep 300' & sleep 0.2; echo shell done`))
  const started = Date.now()
  const exit = await proc.done
  assert.equal(exit.exitCode, 0)
  assert.equal(exit.pipesHeld, true)
  assert.ok(Date.now() - started >= 900, 'the pipes get the drain time before they are closed')
  assert.equal(proc.finished, true)
  assert.match(proc.output.toString(), /shell done/)
})
