// Tests of the sample audit-log plugin loaded by loadPlugins, with calls through a real Dispatcher:
// one JSON line per call with the agreed fields, arguments only on request and then redacted.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdir, readFile, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { toolError } from '../../src/registry/tool-result.ts'
import { pluginSetup, type PluginSetup } from './setup.ts'

const AUDIT_LOG = fileURLToPath(new URL('../../plugins/audit-log.ts', import.meta.url))

function registerTools (s: PluginSetup): void {
  const parameters = { type: 'object', properties: { text: { type: 'string' }, count: { type: 'integer' } } }
  s.registry.register({ name: 'echo', toolset: 'demo', schema: { parameters }, handler: async (args) => `echo:${String(args.text)}` })
  s.registry.register({ name: 'fails', toolset: 'demo', schema: { parameters }, handler: async () => toolError('it failed') })
}

async function readLines (path: string): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(path, 'utf8')
  assert.ok(text.endsWith('\n'), 'every line ends with a newline')
  return text.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
}

test('one JSON line per call: time, tool, callId, sessionId, status, durationMs; no arguments, no result', async (t) => {
  const s = await pluginSetup(t)
  registerTools(s)
  const report = await s.load([{ module: AUDIT_LOG, options: { path: 'logs/audit/calls.jsonl' } }])
  assert.deepEqual(report.failed, [])
  assert.deepEqual(report.loaded[0].hooks, ['post_tool_call'])
  const file = join(s.dir, 'logs/audit/calls.jsonl')

  const before = Date.now()
  const ok = await s.call({ name: 'echo', args: { text: 'private words' }, sessionId: 'sess-1' })
  const failed = await s.call({ name: 'fails', args: {} })
  const invalid = await s.call({ name: 'echo', args: { count: 'many' } })
  const after = Date.now()
  assert.deepEqual([ok.status, failed.status, invalid.status], ['ok', 'error', 'invalid'])

  const lines = await readLines(file)
  assert.equal(lines.length, 3)
  assert.deepEqual(lines.map((l) => [l.tool, l.callId, l.status]), [
    ['echo', ok.callId, 'ok'], ['fails', failed.callId, 'error'], ['echo', invalid.callId, 'invalid']
  ])
  assert.deepEqual(Object.keys(lines[0]).sort(), ['callId', 'durationMs', 'sessionId', 'status', 'time', 'tool'])
  assert.equal(lines[0].sessionId, 'sess-1')
  assert.deepEqual(Object.keys(lines[1]).sort(), ['callId', 'durationMs', 'status', 'time', 'tool'])
  for (const line of lines) {
    assert.ok(Number.isInteger(line.durationMs) && (line.durationMs as number) >= 0)
    const time = Date.parse(line.time as string)
    assert.equal(new Date(time).toISOString(), line.time)
    assert.ok(time >= before && time <= after)
  }
  const text = await readFile(file, 'utf8')
  assert.doesNotMatch(text, /private words|echo:|it failed/)
  assert.equal((await stat(file)).mode & 0o777, 0o600, 'created readable by the gateway user only')
})

test('includeArguments records the arguments with the config\'s secret names redacted at any depth', async (t) => {
  const s = await pluginSetup(t)
  s.config.logging.secretArguments = ['password', 'api key']
  s.registry.register({ name: 'login', toolset: 'demo', schema: { parameters: { type: 'object' } }, handler: async () => 'welcome' })
  await s.load([{ module: AUDIT_LOG, options: { path: 'audit.jsonl', includeArguments: true } }])
  await s.call({
    name: 'login',
    args: { user: 'bob', password: 'hunter2', nested: { 'api key': 'k-123', keep: 1, list: [{ password: 'p2' }] } }
  })
  const [line] = await readLines(join(s.dir, 'audit.jsonl'))
  assert.deepEqual(line.args, {
    user: 'bob', password: '[redacted]', nested: { 'api key': '[redacted]', keep: 1, list: [{ password: '[redacted]' }] }
  })
  assert.doesNotMatch(await readFile(join(s.dir, 'audit.jsonl'), 'utf8'), /hunter2|k-123|p2|welcome/)
})

test('concurrent calls each get one whole line', async (t) => {
  const s = await pluginSetup(t)
  registerTools(s)
  await s.load([{ module: AUDIT_LOG, options: { path: 'audit.jsonl' } }])
  const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) => s.call({ name: 'echo', args: { text: String(i) } })))
  const lines = await readLines(join(s.dir, 'audit.jsonl'))
  assert.equal(lines.length, 40)
  assert.deepEqual(new Set(lines.map((l) => l.callId)), new Set(outcomes.map((o) => o.callId)))
})

test('a failed write is logged and never fails the call; later lines are written again', async (t) => {
  const s = await pluginSetup(t)
  registerTools(s)
  await s.load([{ module: AUDIT_LOG, options: { path: 'audit.jsonl' } }])
  const file = join(s.dir, 'audit.jsonl')
  await mkdir(file) // a folder where the file should be: appending fails with EISDIR
  const outcome = await s.call({ name: 'echo', args: { text: 'x' } })
  assert.equal(outcome.status, 'ok')
  const fault = s.log.lines().find((l) => l.msg === 'audit-log: cannot append to the audit file')
  assert.equal(fault?.plugin, 'audit-log')
  await rm(file, { recursive: true })
  const next = await s.call({ name: 'echo', args: { text: 'y' } })
  assert.deepEqual((await readLines(file)).map((l) => l.callId), [next.callId])
})

test('bad options are a load error, and the gateway keeps going without the plugin', async (t) => {
  const s = await pluginSetup(t)
  const report = await s.load([
    AUDIT_LOG,
    { module: AUDIT_LOG, options: { path: '' } },
    { module: AUDIT_LOG, options: { path: 'a.jsonl', includeArgs: true } },
    { module: AUDIT_LOG, options: { path: 'a.jsonl', includeArguments: 'yes' } }
  ])
  assert.deepEqual(report.loaded, [])
  assert.deepEqual(report.failed.map((f) => f.error), [
    'audit-log needs options { path, includeArguments? }',
    'audit-log: options.path must be a file path',
    'audit-log: unknown option(s) includeArgs; known: path, includeArguments',
    'audit-log: options.includeArguments must be true or false'
  ])
  assert.equal(s.hooks.has('post_tool_call'), false)
})
