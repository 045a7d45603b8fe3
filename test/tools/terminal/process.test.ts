// Background commands and the `process` tool: start, list, poll, kill (the whole group), unknown
// ids, the cap on running processes, and shutdown (dispose) killing whatever still runs.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFile, realpath, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { liveGroupMembers, waitGroupGone } from '../../../tools/terminal/lib/process-group.ts'
import { createToolHarness, type ToolHarness } from '../../helpers/harness.ts'

async function harness (t: { after: (fn: () => Promise<void>) => void }): Promise<ToolHarness> {
  // Unconfined: these tests watch the process group on the host (sandbox.test.ts does the sandbox).
  const h = await createToolHarness({ GATEWAY_ENABLE_TERMINAL: 'true', TERMINAL_SANDBOX: 'none' })
  t.after(() => h.close())
  return h
}

async function startBackground (h: ToolHarness, command: string): Promise<{ id: string, pid: number }> {
  const outcome = await h.call('terminal', { command, background: true })
  assert.equal(outcome.status, 'ok', outcome.content)
  const started = JSON.parse(outcome.content)
  assert.equal(started.status, 'running')
  assert.match(started.id, /^proc_\d+$/)
  assert.ok(Number.isInteger(started.pid) && started.pid > 1)
  return started
}

/** Polls until `done` accepts the accumulated output or status; bounded. */
async function pollUntil (h: ToolHarness, id: string, done: (output: string, last: Record<string, unknown>) => boolean): Promise<{ output: string, last: Record<string, unknown>, polls: Array<Record<string, unknown>> }> {
  let output = ''
  const polls: Array<Record<string, unknown>> = []
  for (let i = 0; i < 300; i++) {
    const last = await h.json('process', { action: 'poll', id })
    polls.push(last)
    output += last.output as string
    if (done(output, last)) return { output, last, polls }
    await delay(10)
  }
  assert.fail(`process ${id} never reached the expected state; output so far: ${output}`)
}

test('a background command returns at once; poll gives new output each time, since: 0 all of it', async (t) => {
  const h = await harness(t)
  const root = await realpath(h.config.workspaceRoot)
  const started = await startBackground(h, 'echo one; while [ ! -f go ]; do sleep 0.02; done; echo two; exit 7')

  const first = await pollUntil(h, started.id, (output) => output.includes('one\n'))
  assert.equal(first.output, 'one\n')
  assert.equal(first.last.status, 'running')
  assert.equal(first.last.exit_code, null)
  assert.equal(first.last.pid, started.pid)

  await writeFile(join(root, 'go'), '')
  const second = await pollUntil(h, started.id, (_output, last) => last.status === 'exited')
  // Only what came after the previous poll: "one" is not repeated.
  assert.equal(second.output, 'two\n')
  assert.equal(second.last.exit_code, 7)
  assert.equal(second.last.next_since, 8)

  const all = await h.json('process', { action: 'poll', id: started.id, since: 0 })
  assert.equal(all.output, 'one\ntwo\n')
  const nothingNew = await h.json('process', { action: 'poll', id: started.id })
  assert.equal(nothingNew.output, '')
  const fromMiddle = await h.json('process', { action: 'poll', id: started.id, since: 4 })
  assert.equal(fromMiddle.output, 'two\n')
})

test('list shows every background process with its status and exit code', async (t) => {
  const h = await harness(t)
  const sleeper = await startBackground(h, 'sleep 300')
  const quick = await startBackground(h, 'exit 2')
  await pollUntil(h, quick.id, (_output, last) => last.status === 'exited')
  const list = await h.json('process', { action: 'list' })
  const processes = list.processes as Array<Record<string, unknown>>
  assert.deepEqual(processes.map((p) => [p.id, p.command, p.status, p.exit_code, p.workdir]), [
    [sleeper.id, 'sleep 300', 'running', null, '.'],
    [quick.id, 'exit 2', 'exited', 2, '.']
  ])
  assert.equal(list.running, 1)
  assert.equal(typeof processes[0].started_at, 'string')
})

test('kill stops the whole process group; a second kill is harmless', async (t) => {
  const h = await harness(t)
  const started = await startBackground(h, "echo ready; sleep 300 & sh -c 'sleep 1000' & wait")
  await pollUntil(h, started.id, (output) => output.includes('ready'))
  for (let i = 0; i < 300 && (await liveGroupMembers(started.pid) ?? []).length < 3; i++) await delay(10)
  assert.ok((await liveGroupMembers(started.pid) ?? []).length >= 3, 'the grandchildren were running')

  const killed = await h.json('process', { action: 'kill', id: started.id })
  assert.equal(killed.status, 'killed')
  assert.equal(killed.signal, 'SIGTERM')
  assert.equal(await waitGroupGone(started.pid, 3000), true, `left behind: ${await liveGroupMembers(started.pid)}`)

  const again = await h.call('process', { action: 'kill', id: started.id })
  assert.equal(again.status, 'ok')
  assert.equal(JSON.parse(again.content).status, 'killed')
  assert.match(JSON.parse(again.content).note, /already/)
})

test('background processes outlive the call and are not killed by its signal', async (t) => {
  const h = await harness(t)
  const controller = new AbortController()
  const outcome = await h.call('terminal', { command: 'sleep 300', background: true }, { signal: controller.signal })
  const started = JSON.parse(outcome.content)
  controller.abort()
  await delay(50) // not a timing assertion: give a wrongly wired abort a chance to act
  assert.ok((await liveGroupMembers(started.pid))?.includes(started.pid), 'still running')
  assert.equal((await h.json('process', { action: 'poll', id: started.id })).status, 'running')
})

test('an unknown or missing id is a clear error listing the known ids', async (t) => {
  const h = await harness(t)
  const none = await h.call('process', { action: 'poll', id: 'proc_42' })
  assert.equal(none.status, 'error')
  assert.match(JSON.parse(none.content).error, /unknown process id "proc_42"; no background process has been started/)

  const started = await startBackground(h, 'sleep 300')
  for (const action of ['poll', 'kill']) {
    const outcome = await h.call('process', { action, id: 'proc_42' })
    assert.equal(outcome.status, 'error')
    const body = JSON.parse(outcome.content)
    assert.match(body.error, new RegExp(`known ids: ${started.id}`))
    assert.deepEqual(body.known_ids, [started.id])
  }
  const missing = await h.call('process', { action: 'kill' })
  assert.equal(missing.status, 'error')
  assert.match(JSON.parse(missing.content).error, /needs an id/)
  assert.equal((await h.call('process', { action: 'restart', id: started.id })).status, 'invalid')
})

test('at most 16 background processes run at once, even when started concurrently; shutdown kills them all', async (t) => {
  const h = await harness(t)
  const outcomes = await Promise.all(Array.from({ length: 17 }, () => h.call('terminal', { command: 'sleep 300', background: true })))
  const ok = outcomes.filter((o) => o.status === 'ok').map((o) => JSON.parse(o.content) as { id: string, pid: number })
  const refused = outcomes.filter((o) => o.status !== 'ok')
  assert.equal(ok.length, 16)
  assert.equal(refused.length, 1)
  assert.match(JSON.parse(refused[0].content).error, /too many background processes: 16 are running/)

  // Once one is killed, a new one may start.
  assert.equal((await h.json('process', { action: 'kill', id: ok[0].id })).status, 'killed')
  const replacement = await startBackground(h, 'sleep 300')
  const pids = [...ok.slice(1).map((p) => p.pid), replacement.pid]
  for (const pid of pids) assert.ok((await liveGroupMembers(pid))?.includes(pid), `group ${pid} runs`)

  await h.close()
  for (const pid of pids) assert.deepEqual(await liveGroupMembers(pid), [], `group ${pid} survived shutdown`)
})

test('shutdown also stops a running foreground command, and nothing new starts afterwards', async (t) => {
  const h = await harness(t)
  const root = await realpath(h.config.workspaceRoot)
  const running = h.call('terminal', { command: 'echo $$ > pgid; sleep 300 & sleep 300; wait' })
  let pgid = 0
  for (let i = 0; i < 300 && pgid === 0; i++) {
    pgid = Number(await readFile(join(root, 'pgid'), 'utf8').catch(() => '0'))
    if (pgid === 0) await delay(10)
  }
  assert.ok(pgid > 1, 'the command started')
  const entry = h.registry.snapshot().tools.get('terminal')
  await entry?.dispose?.()
  assert.deepEqual(await liveGroupMembers(pgid), [])
  const outcome = await running
  assert.match(JSON.parse(outcome.content).note, /shutting down/)
  // A second dispose is harmless, and the tool refuses new work.
  await entry?.dispose?.()
  const after = await h.call('terminal', { command: 'echo late' })
  assert.equal(after.status, 'error')
  assert.match(after.content, /shutting down/)
})
