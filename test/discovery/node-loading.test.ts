// What really happens under Node 24 when tool modules load in the awkward ways users write them,
// with real files in a temp folder: each case either works or fails loudly, naming the module.
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { discoverTools } from '../../src/discovery/discover.ts'
import { ToolRegistry } from '../../src/registry/registry.ts'
import { recordingLogger } from '../helpers/logger.ts'

const here = dirname(fileURLToPath(import.meta.url))
const scopeUrl = pathToFileURL(resolve(here, '../../src/registry/scope.ts')).href
const indexUrl = pathToFileURL(resolve(here, '../../src/registry/index.ts')).href

async function folder (t: { after: (fn: () => Promise<void>) => void }, files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-loading-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true })
    await writeFile(join(dir, name), text)
  }
  return dir
}

const tool = (name: string) => `{ name: '${name}', toolset: 'loading', schema: { parameters: { type: 'object', properties: {} } }, handler: () => '"${name}"' }`
const esm = (name: string) => `import { registry } from 'tool-gateway/registry'\nconst label: string = '${name}'\nregistry.register(${tool(name)})\nexport { label }\n`
const cjs = (name: string) => `const { registry } = require('tool-gateway/registry')\nregistry.register(${tool(name)})\n`

async function discover (dir: string, registry = new ToolRegistry()) {
  const { lines, logger } = recordingLogger()
  const report = await discoverTools({ dir, registry, logger })
  return { registry, report, lines, names: [...registry.snapshot().tools.keys()].sort() }
}

test('a .ts tool in a folder with no package.json (a folder mounted in the container) loads, into each registry', async (t) => {
  const dir = await folder(t, { 'plain.ts': esm('plain_tool') })
  for (let i = 0; i < 2; i++) {
    const { report, names } = await discover(dir)
    assert.deepEqual(report.skipped, [])
    assert.deepEqual(names, ['plain_tool'])
  }
})

test('a .ts or .js tool beside a package.json without "type" loads (Node detects the module syntax)', async (t) => {
  const dir = await folder(t, { 'package.json': '{ "name": "my-tools" }', 'typed.ts': esm('typed_tool'), 'untyped.js': esm('untyped_tool').replace(': string', '') })
  for (let i = 0; i < 2; i++) {
    const { report, names } = await discover(dir)
    assert.deepEqual(report.skipped, [])
    assert.deepEqual(names, ['typed_tool', 'untyped_tool'])
  }
})

test('a CommonJS tool (require, no import syntax) loads into each registry, not only the first', async (t) => {
  const dir = await folder(t, { 'required.ts': cjs('cjs_ts_tool'), 'required.js': cjs('cjs_js_tool') })
  for (let i = 0; i < 2; i++) {
    const { report, names } = await discover(dir)
    assert.deepEqual(report.registeredNothing, [])
    assert.deepEqual(names, ['cjs_js_tool', 'cjs_ts_tool'])
  }
})

test('import syntax under "type": "commonjs" fails loudly: skipped, logged with the file', async (t) => {
  const dir = await folder(t, { 'package.json': '{ "type": "commonjs" }', 'wrong.ts': esm('wrong_tool') })
  const { report, lines, names } = await discover(dir)
  assert.deepEqual(report.skipped.map((s) => s.file), [join(dir, 'wrong.ts')])
  assert.match(report.skipped[0].error, /import/)
  assert.equal(lines.find((line) => line.level === 'error')?.obj.file, join(dir, 'wrong.ts'))
  assert.deepEqual(names, [])
})

test('a registration after a top-level await works: the import is still running', async (t) => {
  const dir = await folder(t, {
    'awaits.ts': esm('awaited_tool').replace('registry.register', 'await new Promise((resolve) => setTimeout(resolve, 5))\nregistry.register')
  })
  const { report, names } = await discover(dir)
  assert.deepEqual(report.tools, ['awaited_tool'])
  assert.deepEqual(names, ['awaited_tool'])
})

test('a registration in a timer or an unawaited promise is refused: it throws there, and discovery logs module and tool', async (t) => {
  const late = 'globalThis.lateRegistrations ??= []\nconst keep = (err) => globalThis.lateRegistrations.push(err)\n' +
    `setTimeout(() => { try { registry.register(${tool('timer_tool')}) } catch (err) { keep(err) } }, 1)\n` +
    `new Promise((resolve) => setTimeout(resolve, 2)).then(() => registry.register(${tool('promise_tool')})).catch(keep)\n`
  const dir = await folder(t, { 'later.mjs': `import { registry } from 'tool-gateway/registry'\n${late}registry.register(${tool('now_tool')})\n` })
  const store = globalThis as { lateRegistrations?: Error[] }
  store.lateRegistrations = []
  const { registry, report, lines } = await discover(dir)
  while (store.lateRegistrations.length < 2) await new Promise((resolve) => setTimeout(resolve, 5))

  const file = join(dir, 'later.mjs')
  assert.deepEqual(report.imported, [file])
  assert.deepEqual([...registry.snapshot().tools.keys()], ['now_tool'])
  for (const [i, name] of ['timer_tool', 'promise_tool'].entries()) {
    assert.ok(store.lateRegistrations[i].message.includes(`"${name}" in ${file} ran after that module finished loading`), store.lateRegistrations[i].message)
  }
  const refused = lines.filter((line) => line.msg === 'tool discovery: registration after the module finished loading, refused')
  assert.deepEqual(refused.map((line) => [line.obj.file, line.obj.err]), [[file, store.lateRegistrations[0]], [file, store.lateRegistrations[1]]])
})

test('a tool module with its own copy of the registry module fails loudly: skipped, the error says why', async (t) => {
  const dir = await folder(t, { 'copy.mjs': `import { registry } from '${scopeUrl}?own-copy'\nregistry.register(${tool('copied_tool')})\n` })
  const { report, names } = await discover(dir)
  assert.deepEqual(report.skipped.map((s) => s.file), [join(dir, 'copy.mjs')])
  assert.match(report.skipped[0].error, /"copied_tool" in .*copy\.mjs went to a second copy of the registry module/)
  assert.deepEqual(names, [])
})

test('a tool module imported by another one runs twice: both tools are served, and a warning names both modules', async (t) => {
  const dir = await folder(t, {
    'package.json': '{ "type": "module" }',
    'a-outer.ts': `import './b-inner.ts'\n${esm('outer_tool')}`,
    'b-inner.ts': esm('inner_tool')
  })
  const { report, lines, names } = await discover(dir)
  assert.deepEqual(names, ['inner_tool', 'outer_tool'])
  assert.deepEqual(report.tools, ['inner_tool', 'outer_tool'])
  const warning = lines.find((line) => line.level === 'warn')
  assert.deepEqual(warning?.obj, { tool: 'inner_tool', file: join(dir, 'b-inner.ts'), first: join(dir, 'a-outer.ts') })
})

test('a tool module imported by hand fails at its import, naming the module and the tool', async (t) => {
  const dir = await folder(t, { 'by-hand.mjs': `import { registry } from '${indexUrl}'\nregistry.register(${tool('hand_tool')})\n` })
  await assert.rejects(import(pathToFileURL(join(dir, 'by-hand.mjs')).href), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'GW_ERR_INVALID_TOOL')
    assert.ok(err.message.includes(`"hand_tool" in ${join(dir, 'by-hand.mjs')} ran outside tool discovery`), err.message)
    return true
  })
})
