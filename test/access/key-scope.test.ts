// KeyScope: what one caller may see and call, for unlimited callers and for keys limited to
// toolsets, including names a limited key must not learn about.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import pino from 'pino'
import { KeyScope } from '../../src/access/key-scope.ts'
import { loadConfig } from '../../src/config/load.ts'
import { UnknownToolsetError } from '../../src/shared/errors.ts'
import { createGateway, type Gateway } from '../../src/core/gateway.ts'
import { fixtureTool } from '../helpers/tools.ts'

async function gatewayWith (tools: Array<[string, string]>): Promise<Gateway> {
  const config = await loadConfig({ env: { TOOLS_DIR: '/nonexistent-tools-dir' }, cwd: '/tmp' })
  const gateway = createGateway(config, pino({ level: 'silent' }))
  for (const [name, toolset] of tools) gateway.registry.register(fixtureTool(name, { toolset }))
  return gateway
}

const TOOLS: Array<[string, string]> = [['read_file', 'file'], ['web_search', 'web'], ['terminal', 'terminal'], ['acme_lint', 'acme']]

test('an unlimited caller may use every tool, and selections resolve against the whole catalogue', async () => {
  const gateway = await gatewayWith(TOOLS)
  for (const scope of [new KeyScope(gateway, undefined), new KeyScope(gateway, { name: 'ops' })]) {
    assert.equal(scope.restricted, false)
    assert.equal(scope.allowed(), undefined)
    assert.equal(scope.cacheKey, '')
    assert.ok(scope.mayUse('terminal') && scope.mayUse('not-even-registered'))
    assert.deepEqual(scope.select(), ['acme_lint', 'read_file', 'terminal', 'web_search'])
    assert.deepEqual(scope.select(['debugging'], ['terminal']), ['read_file', 'web_search'])
    assert.throws(() => scope.select(['nope']), (err) => err instanceof UnknownToolsetError && err.unknown.includes('nope'))
  }
})

test('a limited key sees only its toolsets; other names are unknown to it, existing or not', async () => {
  const gateway = await gatewayWith(TOOLS)
  const scope = new KeyScope(gateway, { name: 'agent', toolsets: ['web', 'acme'] })
  assert.equal(scope.restricted, true)
  assert.equal(scope.cacheKey, 'agent\nweb,acme')
  // A user's next token may grant other toolsets under the same name: its answers are cached apart.
  assert.notEqual(new KeyScope(gateway, { name: 'agent', toolsets: ['web'] }).cacheKey, scope.cacheKey)
  assert.deepEqual([...scope.allowed()!].sort(), ['acme_lint', 'web_search'])
  assert.ok(scope.mayUse('web_search'))
  assert.ok(!scope.mayUse('read_file'))
  assert.deepEqual(scope.select(), ['acme_lint', 'web_search'])
  assert.deepEqual(scope.select(['all'], ['acme']), ['web_search'])
  for (const probe of [['file'], ['terminal'], ['does-not-exist']]) {
    assert.throws(() => scope.select(probe), (err) => {
      assert.ok(err instanceof UnknownToolsetError)
      assert.deepEqual(err.unknown, probe)
      assert.deepEqual(err.valid, ['web', 'acme', 'all'], 'only the key\'s own toolsets are named as valid')
      assert.match(err.message, /valid: web, acme, all$/)
      return true
    })
  }
})

test('a limited key follows registry changes, and a toolset of its that names nothing grants nothing', async () => {
  const gateway = await gatewayWith(TOOLS)
  const scope = new KeyScope(gateway, { name: 'agent', toolsets: ['web', 'mcp-later'] })
  assert.deepEqual([...scope.allowed()!], ['web_search'])
  assert.throws(() => scope.select(['mcp-later']), (err) => err instanceof UnknownToolsetError && err.unknown[0] === 'mcp-later')
  gateway.registry.register(fixtureTool('mcp__later__ping', { toolset: 'mcp-later' }))
  assert.deepEqual([...scope.allowed()!].sort(), ['mcp__later__ping', 'web_search'])
  assert.deepEqual(scope.select(['mcp-later']), ['mcp__later__ping'])
  gateway.registry.deregister('web_search')
  assert.ok(!scope.mayUse('web_search'))
})

test('a key whose toolsets name nothing (blanks, commas) may use no tool, never every tool', async () => {
  const gateway = await gatewayWith(TOOLS)
  const scope = new KeyScope(gateway, { name: 'blank', toolsets: [' ', ','] })
  assert.deepEqual([...scope.allowed()!], [])
  assert.equal(scope.mayUse('terminal'), false)
  assert.deepEqual(scope.select(), [])
  assert.deepEqual(scope.select(['all']), [])
})
