// Patterns in MCP schemas that the linear-time engine cannot run (lookaround, backreferences; zod's
// email pattern has lookaheads): a `pattern` is dropped with a warning, logged and shown in /tools,
// since the server still checks its own inputs and the tool stays usable; a `patternProperties`
// name refuses the tool, since dropping it would change which properties the tool accepts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { rm } from 'node:fs/promises'
import { validateArguments } from '../../src/json-schema/validate.ts'
import { normalizeInputSchema } from '../../src/json-schema/normalize.ts'
import { createMcpHarness } from '../mcp-client/helpers/harness.ts'
import { writeScriptedServer } from '../mcp-client/helpers/scripted-server.ts'
import { waitForState } from '../mcp-client/helpers/wait.ts'

const EMAIL = "^(?!\\.)(?!.*\\.\\.)([A-Za-z0-9_'+\\-\\.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$"
const EMAIL_SCHEMA = { type: 'object', properties: { to: { type: 'string', format: 'email', pattern: EMAIL }, code: { type: 'string', pattern: '^[A-Z]{3}$' } } }
const KEYED_SCHEMA = { type: 'object', patternProperties: { '^(?!x_)': { type: 'string' } }, additionalProperties: false }

test('a pattern RE2 cannot run is dropped with a warning naming it; the others stay', () => {
  const normalized = normalizeInputSchema(EMAIL_SCHEMA)
  assert.equal(normalized.ok, true)
  if (!normalized.ok) return
  const properties = normalized.schema.properties as Record<string, Record<string, unknown>>
  assert.equal(properties.to.pattern, undefined)
  assert.equal(properties.to.format, 'email', 'the other checks of the property stay')
  assert.equal(properties.code.pattern, '^[A-Z]{3}$')
  assert.equal(normalized.warnings.length, 1)
  assert.match(normalized.warnings[0], /^\/properties\/to\/pattern: .*\(\?!.* dropped: the linear-time engine cannot run it/)
  assert.equal(validateArguments({ to: 'ann@example.org', code: 'ABC' }, normalized.schema, false).valid, true)
  assert.equal(validateArguments({ to: 'not an email', code: 'ABC' }, normalized.schema, false).valid, false)
})

test('a patternProperties name RE2 cannot run refuses the tool, with the reason', () => {
  const normalized = normalizeInputSchema(KEYED_SCHEMA)
  assert.equal(normalized.ok, false)
  if (normalized.ok) return
  assert.match(normalized.reason, /^input schema refused: \/patternProperties\/\^\(\?!x_\): the linear-time engine cannot run this pattern/)
})

test('over a real server: the tool with the dropped pattern is served and its warning shown; the other is left out', async (t) => {
  const scripted = await writeScriptedServer([
    { name: 'mail', inputSchema: EMAIL_SCHEMA },
    { name: 'keyed', inputSchema: KEYED_SCHEMA }
  ])
  const h = await createMcpHarness({ raw: scripted.config }, { tuning: { pingIntervalMs: 0 } })
  t.after(async () => {
    await h.manager.stop()
    await rm(scripted.dir, { recursive: true, force: true })
  })
  h.manager.start()
  await h.manager.ready()
  await waitForState(h.manager.connection('raw')!, 'connected')

  const sent = await h.call('mcp__raw__mail', { to: 'ann@example.org', code: 'ABC' })
  assert.equal(sent.status, 'ok', sent.content)
  assert.equal((await h.call('mcp__raw__mail', { to: 'ann@example.org', code: 'abc' })).status, 'invalid', 'the pattern RE2 runs still applies')
  assert.equal(h.registry.getEntry('mcp__raw__keyed'), undefined)

  const status = h.manager.states()[0]
  assert.deepEqual(status.schemaWarnings.map((w) => w.tool), ['mail'])
  assert.match(status.schemaWarnings[0].warning, /\/properties\/to\/pattern: .* dropped/)
  assert.deepEqual(status.toolsLeftOut.map((item) => item.tool), ['keyed'])
  assert.ok(h.log.lines().some((line) => line.msg === 'MCP tool schema check dropped' && line.tool === 'mail'), 'the warning is logged')
})
