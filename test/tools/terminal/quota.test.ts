// The terminal under the workspace quota (WORKSPACE_MAX_BYTES) of the file tools: a command's files
// are cut at the room left when it starts, and after it the quota counts what is on disk, so
// write_file refuses or accepts by the real bytes. Several files can together pass the quota (the
// limit is per file): the result then says so, and the file tools refuse to grow the workspace.
import { before, test } from 'node:test'
import assert from 'node:assert/strict'
import { readdir, realpath, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { ensureBubblewrap } from '../../helpers/bubblewrap.ts'
import { createToolHarness, type ToolHarness } from '../../helpers/harness.ts'

const onlyLinux = process.platform === 'linux' ? {} : { skip: 'bubblewrap exists only on Linux' }
const MiB = 1024 * 1024
const QUOTA = { GATEWAY_ENABLE_TERMINAL: 'true', TERMINAL_SANDBOX: 'bwrap', WORKSPACE_MAX_BYTES: String(10 * MiB) }

before(() => {
  if (process.platform === 'linux') ensureBubblewrap()
})

async function harness (t: { after: (fn: () => Promise<void>) => void }): Promise<ToolHarness> {
  const h = await createToolHarness(QUOTA)
  t.after(() => h.close())
  return h
}

/** Bytes of the regular files directly in `folder`. */
async function bytesIn (folder: string): Promise<number> {
  let total = 0
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    if (entry.isFile()) total += (await stat(join(folder, entry.name))).size
  }
  return total
}

test('a command writing 200 MB under a 10 MiB quota is cut at the quota, and write_file then follows the disk', onlyLinux, async (t) => {
  const h = await harness(t)
  const root = await realpath(h.config.workspaceRoot)
  assert.equal((await h.call('write_file', { path: 'small.txt', content: 'x'.repeat(1000) })).status, 'ok')
  const result = await h.json('terminal', { command: 'head -c 200000000 /dev/zero > big.bin; echo "rc $?"', timeout: 60 })
  assert.match(result.output as string, /rc 153/, 'SIGXFSZ at the room left')
  assert.equal((await stat(join(root, 'big.bin'))).size, 10 * MiB - 1000)
  assert.equal(await bytesIn(root), 10 * MiB)
  assert.match(result.quota_warning as string, /holds 10485760 bytes, at its quota of 10485760 bytes/)

  const refused = await h.call('write_file', { path: 'more.txt', content: 'y' })
  assert.equal(refused.status, 'error', refused.content)
  assert.match(refused.content, /workspace quota of 10485760 bytes/)
  const freed = await h.json('terminal', { command: 'rm big.bin && echo freed' })
  assert.equal(freed.output, 'freed\n')
  assert.equal(freed.quota_warning, undefined)
  assert.equal((await h.call('write_file', { path: 'more.txt', content: 'y'.repeat(5 * MiB) })).status, 'ok')
})

test('files each within the room can pass the quota together: the result says so, and the file tools refuse', onlyLinux, async (t) => {
  const h = await harness(t)
  const root = await realpath(h.config.workspaceRoot)
  const result = await h.json('terminal', { command: 'for i in 1 2 3; do head -c 6000000 /dev/zero > f$i; done; echo done', timeout: 60 })
  assert.equal(result.output, 'done\n')
  assert.equal(await bytesIn(root), 18_000_000, 'the residual: RLIMIT_FSIZE bounds each file, not their sum')
  assert.match(result.quota_warning as string, /holds 18000000 bytes, past its quota of 10485760 bytes/)
  assert.match((await h.call('write_file', { path: 'n.txt', content: 'n' })).content, /workspace quota of 10485760 bytes/)
  // Past the quota, the next command cannot add a byte to any file.
  const next = await h.json('terminal', { command: 'sh -c "echo hello > g.txt"; echo "rc $?"; stat -c %s g.txt' })
  assert.match(next.output as string, /rc 153\n0\n$/)
})

test('a background command is counted when it ends', onlyLinux, async (t) => {
  const h = await harness(t)
  // Measured first, empty: what follows has to be counted again to be seen.
  assert.equal((await h.call('write_file', { path: 'w.txt', content: 'w' })).status, 'ok')
  const started = await h.json('terminal', { command: 'head -c 8000000 /dev/zero > bg.bin', background: true })
  let status = 'running'
  for (let i = 0; i < 1500 && status === 'running'; i++) {
    status = String((await h.json('process', { action: 'poll', id: started.id })).status)
    if (status === 'running') await delay(20)
  }
  assert.notEqual(status, 'running', 'the background command did not end within 30 s')
  // 8 MB on disk: write_file of 3 MiB has to be refused, though no foreground command ran since.
  // Each try is a new file, so one accepted before the count caught up cannot hide a later refusal.
  let refused = false
  for (let i = 0; i < 100 && !refused; i++) {
    const write = await h.call('write_file', { path: `w${i}.txt`, content: 'w'.repeat(3 * MiB) })
    refused = write.status === 'error' && /workspace quota/.test(write.content)
    if (!refused) await delay(50)
    // Two accepted would be past the quota by the files the tools wrote alone: not what is tested.
    assert.ok(refused || i === 0, `write ${i} accepted: the background command's 8 MB were not counted`)
  }
  assert.ok(refused, 'write_file still accepted a write past the quota after the background command ended')
})
