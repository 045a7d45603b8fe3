// Tests of the sample policy plugin loaded by loadPlugins, with calls through a real Dispatcher:
// tools matching a deny pattern (or no allow pattern) are blocked before they run, with the pattern named.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { fileURLToPath } from 'node:url'
import { pluginSetup, type PluginSetup } from './setup.ts'

const POLICY = fileURLToPath(new URL('../../plugins/policy.ts', import.meta.url))

/** Registers tools that record their runs in `ran`. */
function registerTools (s: PluginSetup, names: string[], ran: string[]): void {
  for (const name of names) {
    s.registry.register({ name, toolset: 'demo', schema: { parameters: { type: 'object' } }, handler: async () => { ran.push(name); return 'ran' } })
  }
}

test('deny patterns block matching tools before they run, naming the pattern', async (t) => {
  const s = await pluginSetup(t)
  const ran: string[] = []
  registerTools(s, ['terminal', 'mcp__files__delete_file', 'mcp__files__read_file', 'terminal_status'], ran)
  const report = await s.load([{ module: POLICY, options: { deny: ['terminal', 'mcp__*__delete_*'] } }])
  assert.deepEqual(report.failed, [])

  const { outcome: terminal, httpStatus } = await s.dispatcher.dispatch({ name: 'terminal', args: {} })
  assert.equal(terminal.status, 'blocked')
  assert.equal(httpStatus, 403)
  assert.deepEqual(JSON.parse(terminal.content), { error: 'tool "terminal" is blocked by policy (deny pattern "terminal")' })
  const deleting = await s.call({ name: 'mcp__files__delete_file', args: {} })
  assert.deepEqual(JSON.parse(deleting.content), { error: 'tool "mcp__files__delete_file" is blocked by policy (deny pattern "mcp__*__delete_*")' })

  assert.equal((await s.call({ name: 'mcp__files__read_file', args: {} })).status, 'ok')
  assert.equal((await s.call({ name: 'terminal_status', args: {} })).status, 'ok', 'a pattern matches whole names')
  assert.deepEqual(ran, ['mcp__files__read_file', 'terminal_status'])
})

test('an allow list blocks every tool it does not match; deny still wins', async (t) => {
  const s = await pluginSetup(t)
  const ran: string[] = []
  registerTools(s, ['web_search', 'web_extract', 'read_file'], ran)
  await s.load([{ module: POLICY, options: { allow: ['web_*'], deny: ['web_extract'] } }])
  assert.equal((await s.call({ name: 'web_search', args: {} })).status, 'ok')
  const extract = await s.call({ name: 'web_extract', args: {} })
  assert.match(JSON.parse(extract.content).error, /deny pattern "web_extract"/)
  const read = await s.call({ name: 'read_file', args: {} })
  assert.equal(JSON.parse(read.content).error, 'tool "read_file" is blocked by policy (it matches no allow pattern: web_*)')
  assert.deepEqual(ran, ['web_search'])
})

test('options that would leave everything open are load errors', async (t) => {
  const s = await pluginSetup(t)
  const report = await s.load([
    POLICY,
    { module: POLICY, options: { deny: 'terminal' } },
    { module: POLICY, options: { deny: [''] } },
    { module: POLICY, options: { denied: ['terminal'] } }
  ])
  assert.deepEqual(report.loaded, [])
  assert.deepEqual(report.failed.map((f) => f.error), [
    'policy: give options.deny and/or options.allow',
    'policy: options.deny must be a list of non-empty glob patterns',
    'policy: options.deny must be a list of non-empty glob patterns',
    'policy: unknown option(s) denied; known: deny, allow'
  ])
})
