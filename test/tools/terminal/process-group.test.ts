// Killing a whole process group: every member goes, including grandchildren and a process that
// ignores SIGTERM (after the grace, with SIGKILL), and liveness is read from the real process list.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { setTimeout as delay } from 'node:timers/promises'
import { isGroupAlive, killGroup, liveGroupMembers, signalGroup, waitGroupGone } from '../../../tools/terminal/lib/process-group.ts'

async function spawnGroup (script: string): Promise<ChildProcess> {
  const child = spawn('/bin/sh', ['-c', script], { detached: true, stdio: 'ignore' })
  await once(child, 'spawn')
  return child
}

/** Bounded wait until the group has at least `count` live members. */
async function membersAtLeast (pgid: number, count: number): Promise<number[]> {
  for (let i = 0; i < 200; i++) {
    const members = await liveGroupMembers(pgid) ?? []
    if (members.length >= count) return members
    await delay(10)
  }
  assert.fail(`group ${pgid} never reached ${count} live members`)
}

test('liveGroupMembers lists the leader and its grandchildren, each really running in that group', async (t) => {
  const child = await spawnGroup('sleep 300 & sleep 300 & wait')
  const pgid = child.pid as number
  t.after(() => { try { process.kill(-pgid, 'SIGKILL') } catch {} })
  const members = await membersAtLeast(pgid, 3)
  assert.ok(members.includes(pgid))
  for (const pid of members) process.kill(pid, 0) // throws if the pid were made up
  assert.equal(await isGroupAlive(pgid), true)
})

test('killGroup removes the leader and its background grandchildren', async (t) => {
  const child = await spawnGroup("sleep 300 & sh -c 'sleep 1000' & wait")
  const pgid = child.pid as number
  t.after(() => { try { process.kill(-pgid, 'SIGKILL') } catch {} })
  await membersAtLeast(pgid, 3)
  const result = await killGroup(pgid, 2000)
  assert.deepEqual(result, { forced: false, gone: true })
  assert.deepEqual(await liveGroupMembers(pgid), [])
  assert.equal(await isGroupAlive(pgid), false)
})

test('a group that ignores SIGTERM is SIGKILLed after the grace', async (t) => {
  // An ignored signal stays ignored across fork and exec, so the sleeps ignore SIGTERM too.
  const child = await spawnGroup("trap '' TERM; sleep 300 & sleep 300 & wait")
  const pgid = child.pid as number
  t.after(() => { try { process.kill(-pgid, 'SIGKILL') } catch {} })
  await membersAtLeast(pgid, 3)
  const result = await killGroup(pgid, 150)
  assert.deepEqual(result, { forced: true, gone: true })
  assert.deepEqual(await liveGroupMembers(pgid), [])
})

test('killing a group that is already gone is a no-op', async () => {
  const child = await spawnGroup('exit 0')
  await once(child, 'exit')
  const pgid = child.pid as number
  assert.equal(await waitGroupGone(pgid, 1000), true)
  assert.deepEqual(await killGroup(pgid, 100), { forced: false, gone: true })
})

test('signalGroup refuses the groups 0 and 1, which would reach the gateway itself or every process', () => {
  assert.throws(() => signalGroup(0, 'SIGTERM'), RangeError)
  assert.throws(() => signalGroup(1, 'SIGTERM'), RangeError)
})
