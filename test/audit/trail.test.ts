// The audit trail on its own: lines written in batches off the caller's path, the digest in place of
// argument values (and the values redacted when asked), the file rotated by size on real files, and
// the pages GET /admin/audit answers from memory (by time, by cursor, bounded).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AuditTrail } from '../../src/audit/trail.ts'
import { argumentsDigest } from '../../src/audit/line.ts'

async function tempDir (t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'audit-'))
  t.after(async () => { await rm(dir, { recursive: true, force: true }) })
  return dir
}

test('a call is one line: time, seq, its fields, the digest of its arguments and never their values', async (t) => {
  const dir = await tempDir(t)
  const out: string[] = []
  const trail = new AuditTrail({ file: { path: join(dir, 'audit.log'), maxBytes: 1 << 20, keep: 2 }, stdout: { write: (text) => out.push(text) }, ringSize: 10, now: () => Date.UTC(2026, 0, 2, 3, 4, 5) })
  trail.record({ type: 'call', via: 'rest', tool: 'echo', callId: 'c1', status: 'ok', durationMs: 3, args: { text: 'very-secret-value' }, resultBytes: 12, principal: 'full', requestId: 'req-1' })
  assert.equal(out.length, 0, 'nothing is written in the caller\'s turn')
  await trail.flush()
  const text = await readFile(join(dir, 'audit.log'), 'utf8')
  assert.equal(out.join(''), text)
  assert.ok(!text.includes('very-secret-value'))
  assert.deepEqual(JSON.parse(text), {
    time: '2026-01-02T03:04:05.000Z',
    seq: 1,
    type: 'call',
    via: 'rest',
    tool: 'echo',
    callId: 'c1',
    status: 'ok',
    durationMs: 3,
    resultBytes: 12,
    principal: 'full',
    requestId: 'req-1',
    argsDigest: argumentsDigest({ text: 'very-secret-value' })
  })
  assert.match(argumentsDigest({ a: 1 }), /^sha256:[0-9a-f]{64}$/)
  assert.equal(argumentsDigest('{"a":1}'), argumentsDigest({ a: 1 }), 'a JSON string is digested as sent, which equals its object\'s compact JSON')
})

test('with a redactor, the arguments are written through it', async () => {
  const trail = new AuditTrail({ ringSize: 10, redact: () => ({ password: '[redacted]' }) })
  trail.record({ type: 'call', via: 'mcp', tool: 'login', status: 'ok', durationMs: 1, args: { password: 'hunter22' } })
  const [line] = trail.page({ limit: 10 }).lines
  assert.deepEqual(JSON.parse(line).args, { password: '[redacted]' })
  assert.ok(!line.includes('hunter22'))
})

test('the file is rotated by size, keeping N files, on real files', async (t) => {
  const dir = await tempDir(t)
  const path = join(dir, 'audit.log')
  await writeFile(path, 'x'.repeat(900) + '\n')
  const trail = new AuditTrail({ file: { path, maxBytes: 1024, keep: 2 }, ringSize: 0 })
  for (let round = 0; round < 6; round++) {
    for (let i = 0; i < 3; i++) trail.record({ type: 'admin', action: 'test', detail: { round, i, pad: 'p'.repeat(60) } })
    await trail.flush()
  }
  const files = (await readdir(dir)).sort()
  assert.deepEqual(files, ['audit.log', 'audit.log.1', 'audit.log.2'])
  for (const file of files) {
    const text = await readFile(join(dir, file), 'utf8')
    assert.ok(Buffer.byteLength(text) <= 1024, `${file} stays within maxBytes`)
    for (const line of text.trim().split('\n')) assert.equal(JSON.parse(line).type, 'admin')
  }
  // The newest lines are in the current file, the oldest kept in .2; the pre-existing line is gone.
  const seqs = async (file: string): Promise<number[]> => (await readFile(join(dir, file), 'utf8')).trim().split('\n').map((line) => JSON.parse(line).seq as number)
  const [current, one, two] = [await seqs('audit.log'), await seqs('audit.log.1'), await seqs('audit.log.2')]
  assert.equal(current.at(-1), 18)
  assert.ok(Math.max(...two) < Math.min(...one) && Math.max(...one) < Math.min(...current))
})

test('pages: since a time, after a cursor, bounded, and the ring keeps the latest lines', () => {
  let now = 1000
  const trail = new AuditTrail({ ringSize: 5, now: () => now })
  for (let i = 1; i <= 8; i++) {
    now = i * 1000
    trail.record({ type: 'admin', action: `a${i}` })
  }
  const all = trail.page({ limit: 100 })
  assert.ok(all.lines.length >= 5 && all.lines.length <= 6)
  assert.equal(JSON.parse(all.lines.at(-1) as string).action, 'a8')
  const since = trail.page({ since: 6000, limit: 2 })
  assert.deepEqual(since.lines.map((line) => JSON.parse(line).action), ['a6', 'a7'])
  assert.equal(since.cursor, 7)
  const next = trail.page({ cursor: since.cursor, limit: 2 })
  assert.deepEqual(next.lines.map((line) => JSON.parse(line).action), ['a8'])
  assert.equal(trail.page({ cursor: 8, limit: 2 }).lines.length, 0)
  assert.equal(trail.page({ cursor: 8, limit: 2 }).cursor, 8)
  assert.equal(trail.page({ cursor: 0, limit: 1 }).truncated, true, 'lines older than the ring were asked for')
})

test('a file that cannot be written is told once per failing burst, and recording goes on', async (t) => {
  const dir = await tempDir(t)
  // Its folder is a file: every append fails.
  await writeFile(join(dir, 'not-a-folder'), '')
  const errors: unknown[] = []
  const trail = new AuditTrail({ file: { path: join(dir, 'not-a-folder', 'audit.log'), maxBytes: 1 << 20, keep: 1 }, ringSize: 10, onWriteError: (err) => errors.push(err) })
  for (let i = 0; i < 3; i++) {
    trail.record({ type: 'admin', action: `a${i}` })
    await trail.flush()
  }
  assert.equal(errors.length, 1)
  assert.equal(trail.page({ limit: 10 }).lines.length, 3, 'the ring still has every line')
})
