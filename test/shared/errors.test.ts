// The error registry: every code is unique and carried both by the class and its instances, and
// the typed errors keep what they carry and tell each other apart.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import * as errors from '../../src/shared/errors.ts'

const classes = Object.entries(errors) as Array<[string, { code: string, statusCode: number, new (...args: never[]): Error & { code: string, statusCode: number } }]>

test('every error class has its own GW_ERR_* code, the same on the class and on an instance', () => {
  const codes = classes.map(([, ErrorClass]) => ErrorClass.code)
  assert.equal(new Set(codes).size, codes.length, `a code is reused: ${codes.join(', ')}`)
  for (const [name, ErrorClass] of classes) {
    assert.match(ErrorClass.code, /^GW_ERR_[A-Z_]+$/, name)
    assert.equal(typeof ErrorClass.statusCode, 'number', name)
  }
  const sample = new errors.TimeoutError('slow')
  assert.deepEqual([sample.code, sample.statusCode, sample.message], [errors.TimeoutError.code, 504, 'slow'])
})

test('typed errors carry their details and are told apart by class, never by message', () => {
  const unknown = new errors.UnknownToolsetError('Unknown toolset: "x"', { unknown: ['x'], valid: ['file', 'web'] })
  assert.deepEqual([unknown.unknown, unknown.valid, unknown.statusCode], [['x'], ['file', 'web'], 400])
  assert.ok(unknown instanceof errors.UnknownToolsetError)

  const lost = new errors.McpConnectionLostError('srv', 'went away', { cause: new Error('ECONNRESET') })
  assert.deepEqual([lost.server, lost.code, (lost.cause as Error).message], ['srv', 'GW_ERR_MCP_CONNECTION_LOST', 'ECONNRESET'])
  assert.ok(lost instanceof errors.McpConnectionLostError)
  assert.ok(!(lost instanceof errors.McpTimeoutError))
  assert.ok(!(new errors.McpTimeoutError('srv', 'went away') instanceof errors.McpConnectionLostError), 'same message, another class')

  const plugin = new errors.PluginLoadError('audit', 'plugin "audit" failed to load', { cause: new Error('boom') })
  assert.deepEqual([plugin.plugin, plugin.code, (plugin.cause as Error).message], ['audit', 'GW_ERR_PLUGIN_LOAD', 'boom'])
})
