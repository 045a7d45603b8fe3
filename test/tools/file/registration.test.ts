// The file tools as discovery registers them: metadata a model and an operator rely on, and the
// toolset rule of issue 4 (the `safe` toolset holds nothing that writes, nor any file tool).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ToolsetCatalog } from '../../../src/toolsets/catalog.ts'
import { fileFixture } from './setup.ts'

const FILE_TOOLS = ['patch', 'read_file', 'search_files', 'write_file']

test('the four file tools are discovered with model-facing metadata', async (t) => {
  const fx = await fileFixture(t)
  const tools = fx.h.registry.snapshot().tools
  for (const name of FILE_TOOLS) {
    const entry = tools.get(name)
    assert.ok(entry, `${name} is registered`)
    assert.equal(entry.toolset, 'file')
    assert.ok(entry.description.length > 150, `${name} has a real description`)
    assert.notEqual(entry.emoji, '⚡', `${name} sets its own emoji`)
    assert.ok(Number.isFinite(entry.maxResultSizeChars) && entry.maxResultSizeChars > 0)
    assert.ok(entry.timeoutMs !== undefined && entry.timeoutMs > 0)
    assert.equal(entry.checkFn, undefined, 'file tools are always available')
    assert.deepEqual(entry.requiresEnv, [])
    const parameters = entry.schema.parameters as { properties: Record<string, { description?: string }>, additionalProperties: boolean }
    assert.equal(parameters.additionalProperties, false)
    for (const [param, schema] of Object.entries(parameters.properties)) {
      assert.ok((schema.description ?? '').length > 10, `${name}.${param} has a description`)
    }
  }
  assert.deepEqual(Object.keys((tools.get('read_file')!.schema.parameters as { properties: object }).properties), ['path', 'offset', 'limit'])
  assert.deepEqual(Object.keys((tools.get('write_file')!.schema.parameters as { properties: object }).properties), ['path', 'content'])
  assert.deepEqual(Object.keys((tools.get('patch')!.schema.parameters as { properties: object }).properties), ['mode', 'path', 'old_string', 'new_string', 'replace_all', 'patch'])
  assert.deepEqual(Object.keys((tools.get('search_files')!.schema.parameters as { properties: object }).properties),
    ['pattern', 'target', 'path', 'file_glob', 'limit', 'offset', 'output_mode', 'context'])
})

test('toolsets: file holds the four tools, debugging includes them, safe holds none of them', async (t) => {
  const fx = await fileFixture(t)
  const catalog = new ToolsetCatalog()
  const snapshot = fx.h.registry.snapshot()
  assert.deepEqual(catalog.resolve(['file'], snapshot).filter((name) => FILE_TOOLS.includes(name)), FILE_TOOLS)
  assert.deepEqual(catalog.resolve(['debugging'], snapshot).filter((name) => FILE_TOOLS.includes(name)), FILE_TOOLS)
  const safe = catalog.resolve(['safe'], snapshot)
  for (const name of FILE_TOOLS) assert.ok(!safe.includes(name), `safe must not contain ${name}`)
})

test('the dispatcher validates arguments against the schemas (a model gets a correctable error)', async (t) => {
  const fx = await fileFixture(t)
  const outcome = await fx.h.call('read_file', { path: 'a.txt', offset: 0 })
  assert.equal(outcome.status, 'invalid')
  const unknown = await fx.h.call('write_file', { path: 'a.txt', content: 'x', mode: 'append' })
  assert.equal(unknown.status, 'invalid')
  // Models send numbers as strings: coercion makes them integers.
  await fx.put({ 'a.txt': 'one\ntwo\n' })
  assert.equal((await fx.json('read_file', { path: 'a.txt', offset: '2' })).content, '2|two')
})
