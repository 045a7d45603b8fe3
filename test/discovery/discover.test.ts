// Tests tool discovery: static detection of top-level self-registration, the recursive file scan,
// fault-tolerant imports into the right registry (several registries in one process included),
// several folders in order, and the report of modules that imported but registered nothing.
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { discoverTools } from '../../src/discovery/discover.ts'
import { listModuleFiles } from '../../src/discovery/find-tool-modules.ts'
import { registersAtTopLevel } from '../../src/discovery/top-level-register.ts'
import { ToolRegistry } from '../../src/registry/registry.ts'
import { evaluationsOf } from '../fixtures/discovery/evaluated.ts'
import { recordingLogger } from '../helpers/logger.ts'

const here = dirname(fileURLToPath(import.meta.url))
const fixtures = resolve(here, '../fixtures/discovery/tools')
const registryIndexUrl = pathToFileURL(resolve(here, '../../src/registry/index.ts')).href

function toolNames (registry: ToolRegistry): string[] {
  return [...registry.snapshot().tools.keys()].sort()
}

async function tempDir (t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-discovery-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return dir
}

async function writeFiles (dir: string, files: Record<string, string>): Promise<void> {
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true })
    await writeFile(join(dir, name), text)
  }
}

function toolModule (name: string, toolset: string, before = ''): string {
  return `import { registry } from '${registryIndexUrl}'\n${before}\n` +
    `registry.register({ name: '${name}', toolset: '${toolset}', ` +
    'schema: { parameters: { type: \'object\', properties: {} } }, handler: () => \'{}\' })\n'
}

const topLevelCases: Array<{ name: string, file?: string, source: string, registers: boolean }> = [
  { name: 'a plain top-level call', source: 'registry.register({ name: "a" })', registers: true },
  { name: 'a call among imports and declarations', source: 'import { registry } from "./r.ts"\nconst x = 1\nregistry.register({ name: "a", x })\nexport {}', registers: true },
  { name: 'TypeScript syntax in the call', source: 'registry.register({ name: "a" } satisfies Options as Options)\ntype Options = { name: string }', registers: true },
  { name: 'a parenthesised call', source: '(registry.register)({ name: "a" })', registers: true },
  { name: 'a computed string key', source: 'registry["register"]({ name: "a" })', registers: true },
  { name: 'plain JavaScript (.mjs)', file: 'tool.mjs', source: 'import { registry } from "./r.js"\nregistry.register({ name: "a" })', registers: true },
  { name: 'a call inside a function', source: 'function later () { registry.register({ name: "a" }) }', registers: false },
  { name: 'a call inside an arrow function', source: 'export const later = () => registry.register({ name: "a" })', registers: false },
  { name: 'a call inside a top-level block', source: 'if (process.env.X) { registry.register({ name: "a" }) }', registers: false },
  { name: 'a call in a declaration', source: 'export const entry = registry.register({ name: "a" })', registers: false },
  { name: 'an awaited call', source: 'await registry.register({ name: "a" })', registers: false },
  { name: 'optional chaining', source: 'registry?.register({ name: "a" })', registers: false },
  { name: 'another object', source: 'plugins.register({ name: "a" })\nregistry.deregister("a")', registers: false },
  { name: 'a bare register call', source: 'register({ name: "a" })', registers: false },
  { name: 'comments and strings only', source: '// registry.register({})\n/* registry.register({}) */\nconst s = "registry.register({})"\nconst t = `registry.register()`', registers: false },
  { name: 'an empty file', source: '', registers: false }
]

for (const { name, file, source, registers } of topLevelCases) {
  test(`registersAtTopLevel: ${name} → ${registers}`, () => {
    assert.deepEqual(registersAtTopLevel(file ?? 'tool.ts', source), { registers, parseErrors: [] })
  })
}

test('registersAtTopLevel: a syntax error is not a registering module and is reported with its position', () => {
  const result = registersAtTopLevel('tool.ts', 'registry.register({ name: "a" }\nconst = 1\n')
  assert.equal(result.registers, false)
  assert.equal(result.parseErrors.length > 0, true)
  assert.match(result.parseErrors[0], /line 2, column \d+/)
})

test('registersAtTopLevel: TypeScript in a .js file is a parse error', () => {
  const result = registersAtTopLevel('tool.js', 'const x: number = 1\nregistry.register({ x })')
  assert.equal(result.registers, false)
  assert.notDeepEqual(result.parseErrors, [])
})

test('listModuleFiles: recursive, only module files, no tests, declarations, node_modules or dot-folders, sorted', async (t) => {
  const dir = await tempDir(t)
  const names = [
    'b.mts', 'a.ts', 'A.ts', 'c.js', 'd.mjs', 'e.cjs', 'types.d.ts', 'more.d.mts', 'f.test.ts', 'g.test.mjs',
    'notes.md', 'data.json', '.hidden.ts', 'node_modules/pkg/index.js', '.git/hook.js', 'sub/.cache/x.ts',
    'sub/z.ts', 'sub/deeper/y.mjs', 'sub.ts'
  ]
  await writeFiles(dir, Object.fromEntries(names.map((name) => [name, ''])))
  assert.deepEqual(await listModuleFiles(dir),
    ['A.ts', 'a.ts', 'b.mts', 'c.js', 'd.mjs', 'sub.ts', 'sub/deeper/y.mjs', 'sub/z.ts'].map((name) => join(dir, name)))
})

test('listModuleFiles: a linked file counts (ConfigMap mounts are links), a linked folder is not walked', async (t) => {
  const dir = await tempDir(t)
  await writeFiles(dir, { 'elsewhere/real.ts': '', 'elsewhere/inner/deep.ts': '', 'tools/own.ts': '', 'tools/sub/nested/node_modules/pkg/index.ts': '' })
  await symlink(join(dir, 'elsewhere/real.ts'), join(dir, 'tools/linked.ts'))
  await symlink(join(dir, 'elsewhere/inner'), join(dir, 'tools/folder-link'))
  assert.deepEqual(await listModuleFiles(join(dir, 'tools')), ['linked.ts', 'own.ts'].map((name) => join(dir, 'tools', name)))
})

test('listModuleFiles: a missing folder rejects with ENOENT, a file with a configuration error naming it', async (t) => {
  const dir = await tempDir(t)
  await assert.rejects(listModuleFiles(join(dir, 'nope')), { code: 'ENOENT' })
  await writeFiles(dir, { 'file.ts': '' })
  await assert.rejects(listModuleFiles(join(dir, 'file.ts')), { code: 'GW_ERR_INVALID_CONFIG', message: `The tool folder ${join(dir, 'file.ts')} is not a folder` })
})

test('discoverTools: imports self-registering modules only, skips broken ones and reports everything', async () => {
  const registry = new ToolRegistry()
  const { lines, logger } = recordingLogger()
  const report = await discoverTools({ dir: fixtures, registry, logger })

  assert.deepEqual(report.imported, [join(fixtures, 'echo.ts'), join(fixtures, 'nested/deeper/nested-tool.ts')])
  assert.deepEqual(report.ignored,
    ['helper.ts', 'mentions-register.ts', 'registers-in-function.ts'].map((name) => join(fixtures, name)))
  assert.deepEqual(report.skipped.map((s) => s.file), [join(fixtures, 'broken-syntax.ts'), join(fixtures, 'throws-on-import.ts')])
  assert.match(report.skipped[0].error, /line \d+, column \d+/)
  assert.equal(report.skipped[1].error, 'fixture module exploded on import')

  assert.deepEqual(toolNames(registry), ['fixture_echo', 'fixture_nested'])
  const echo = registry.snapshot().tools.get('fixture_echo')
  assert.equal(echo?.toolset, 'fixture')
  assert.equal(await echo?.handler({ text: 'hi' }, undefined as never), '{"text":"hi"}')

  const errors = lines.filter((line) => line.level === 'error')
  assert.deepEqual(errors.map((line) => line.obj.file), [join(fixtures, 'broken-syntax.ts'), join(fixtures, 'throws-on-import.ts')])
  assert.ok(errors[0].obj.err instanceof SyntaxError)
  assert.equal((errors[1].obj.err as Error).message, 'fixture module exploded on import')
  assert.deepEqual(report.registeredNothing, [])
  assert.deepEqual(report.tools, ['fixture_echo', 'fixture_nested'])
  const done = lines.find((line) => line.level === 'info')
  assert.equal(done?.msg, 'tool discovery done')
  assert.deepEqual(done?.obj, { dirs: [fixtures], imported: 2, registeredNothing: 0, skipped: 2, ignored: 3, tools: ['fixture_echo', 'fixture_nested'] })
})

test('discoverTools: modules without a top-level registration are never evaluated', async () => {
  await discoverTools({ dir: fixtures, registry: new ToolRegistry(), logger: recordingLogger().logger })
  assert.deepEqual(evaluationsOf('/tools/helper.ts'), [])
  assert.deepEqual(evaluationsOf('/tools/registers-in-function.ts'), [])
  assert.deepEqual(evaluationsOf('/tools/mentions-register.ts'), [])
  assert.ok(evaluationsOf('/tools/echo.ts').length > 0)
})

test('the evaluation marks do record an import (so the test above can fail)', async () => {
  await import(pathToFileURL(join(fixtures, 'helper.ts')).href + '?sanity')
  assert.deepEqual(evaluationsOf('/tools/helper.ts').map((url) => new URL(url).search), ['?sanity'])
})

test('discoverTools: the same folder into two registries registers the tools in both, each module evaluated once per registry', async () => {
  const first = new ToolRegistry()
  const second = new ToolRegistry()
  const before = evaluationsOf('/tools/echo.ts').length
  await discoverTools({ dir: fixtures, registry: first, logger: recordingLogger().logger })
  await discoverTools({ dir: fixtures, registry: second, logger: recordingLogger().logger })

  assert.deepEqual(toolNames(first), ['fixture_echo', 'fixture_nested'])
  assert.deepEqual(toolNames(second), ['fixture_echo', 'fixture_nested'])
  assert.notEqual(first.snapshot().tools.get('fixture_echo'), second.snapshot().tools.get('fixture_echo'))
  assert.equal(evaluationsOf('/tools/echo.ts').length, before + 2)
})

test('discoverTools: concurrent discoveries keep each registration in its own registry', async (t) => {
  const dir = await tempDir(t)
  // Each module awaits before registering: the target must survive top-level await.
  await writeFiles(dir, {
    'package.json': '{ "type": "module" }',
    'slow.ts': toolModule('slow_tool', 'async', 'await new Promise((resolve) => setImmediate(resolve))'),
    'fast.mjs': toolModule('fast_tool', 'async', 'await Promise.resolve()')
  })
  const registries = [new ToolRegistry(), new ToolRegistry(), new ToolRegistry()]
  const reports = await Promise.all(registries.map((registry) => discoverTools({ dir, registry, logger: recordingLogger().logger })))
  for (const report of reports) assert.deepEqual(report.skipped, [])
  for (const registry of registries) assert.deepEqual(toolNames(registry), ['fast_tool', 'slow_tool'])
})

test('discoverTools: discovering into the same registry again keeps its tools and reports them, without re-evaluating', async () => {
  const registry = new ToolRegistry()
  await discoverTools({ dir: fixtures, registry, logger: recordingLogger().logger })
  const before = evaluationsOf('/tools/echo.ts').length
  const { lines, logger } = recordingLogger()
  const report = await discoverTools({ dir: fixtures, registry, logger })
  assert.equal(report.imported.length, 2)
  assert.deepEqual(report.registeredNothing, [])
  assert.deepEqual(report.tools, ['fixture_echo', 'fixture_nested'])
  assert.equal(lines.filter((line) => line.level === 'warn').length, 0)
  assert.equal(evaluationsOf('/tools/echo.ts').length, before)
  assert.deepEqual(toolNames(registry), ['fixture_echo', 'fixture_nested'])
})

test('discoverTools: a refused registration (collision) skips that module, the earlier tool stays', async (t) => {
  const dir = await tempDir(t)
  await writeFiles(dir, {
    'package.json': '{ "type": "module" }',
    'a-first.js': toolModule('dup_tool', 'one'),
    'b-second.ts': toolModule('dup_tool', 'two'),
    'c-third.mjs': toolModule('third_tool', 'three')
  })
  const registry = new ToolRegistry()
  const { lines, logger } = recordingLogger()
  const report = await discoverTools({ dir, registry, logger })

  assert.deepEqual(report.imported, [join(dir, 'a-first.js'), join(dir, 'c-third.mjs')])
  assert.deepEqual(report.skipped.map((s) => s.file), [join(dir, 'b-second.ts')])
  assert.match(report.skipped[0].error, /dup_tool/)
  assert.equal(registry.snapshot().tools.get('dup_tool')?.toolset, 'one')
  assert.equal(registry.snapshot().tools.get('third_tool')?.toolset, 'three')
  const error = lines.find((line) => line.level === 'error')
  assert.equal((error?.obj.err as { code?: string }).code, 'GW_ERR_TOOL_COLLISION')
})

test('discoverTools: a missing folder logs a warning and returns an empty report', async (t) => {
  const dir = join(await tempDir(t), 'tools')
  const { lines, logger } = recordingLogger()
  const report = await discoverTools({ dir, registry: new ToolRegistry(), logger })
  assert.deepEqual(report, { imported: [], registeredNothing: [], skipped: [], ignored: [], tools: [] })
  assert.deepEqual(lines.map((line) => [line.level, line.msg]), [
    ['warn', 'tool discovery: folder not found, no tools loaded from it'], ['info', 'tool discovery done']
  ])
  assert.equal(lines[0].obj.dir, dir)
})

test('discoverTools: a relative folder is resolved against the working directory', async () => {
  const registry = new ToolRegistry()
  const report = await discoverTools({ dir: fixtures.slice(process.cwd().length + 1), registry, logger: recordingLogger().logger })
  assert.equal(report.imported[0], join(fixtures, 'echo.ts'))
  assert.deepEqual(toolNames(registry), ['fixture_echo', 'fixture_nested'])
})

test('discoverTools: a module that throws after registering is rolled back whole', async (t) => {
  const dir = await tempDir(t)
  await writeFiles(dir, {
    'package.json': '{ "type": "module" }',
    'half.ts': toolModule('half_one', 'half') + toolModule('half_two', 'half').split('\n').slice(1).join('\n') +
      'throw new Error(\'set-up failed after registering\')\n',
    'whole.ts': toolModule('whole_tool', 'whole')
  })
  const registry = new ToolRegistry()
  const { lines, logger } = recordingLogger()
  const report = await discoverTools({ dir, registry, logger })
  assert.deepEqual(report.skipped.map((s) => [s.file, s.error]), [[join(dir, 'half.ts'), 'set-up failed after registering']])
  assert.deepEqual(toolNames(registry), ['whole_tool'])
  const error = lines.find((line) => line.level === 'error')
  assert.deepEqual(error?.obj.rolledBack, ['half_one', 'half_two'])
})

test('discoverTools: several folders load in order, the first wins a collision, a missing one is only a warning', async (t) => {
  const dir = await tempDir(t)
  await writeFiles(dir, {
    'package.json': '{ "type": "module" }',
    'builtin/shared.ts': toolModule('shared_tool', 'builtin'),
    'builtin/own.ts': toolModule('builtin_tool', 'builtin'),
    'extra/a-shared.ts': toolModule('shared_tool', 'extra'),
    'extra/b-mine.ts': toolModule('extra_tool', 'extra')
  })
  const registry = new ToolRegistry()
  const { lines, logger } = recordingLogger()
  const dirs = [join(dir, 'builtin'), join(dir, 'absent'), join(dir, 'extra')]
  const report = await discoverTools({ dir: dirs, registry, logger })

  assert.deepEqual(report.imported, [join(dir, 'builtin/own.ts'), join(dir, 'builtin/shared.ts'), join(dir, 'extra/b-mine.ts')])
  assert.deepEqual(report.skipped.map((s) => s.file), [join(dir, 'extra/a-shared.ts')])
  assert.deepEqual(report.tools, ['builtin_tool', 'shared_tool', 'extra_tool'])
  assert.equal(registry.snapshot().tools.get('shared_tool')?.toolset, 'builtin')
  assert.deepEqual(lines.filter((line) => line.level === 'warn').map((line) => line.obj.dir), [join(dir, 'absent')])
  assert.deepEqual(lines.find((line) => line.msg === 'tool discovery done')?.obj.dirs, dirs)
})

test('discoverTools: a module that imports but registers nothing has its own report field, a warning and a count', async (t) => {
  const dir = await tempDir(t)
  await writeFiles(dir, {
    'package.json': '{ "type": "module" }',
    // Its `registry` is not the gateway's: the call is top-level, yet nothing reaches the registry.
    'impostor.ts': 'const registry = { register (_options: unknown) {} }\nregistry.register({ name: \'ghost\' })\n',
    'real.ts': toolModule('real_tool', 'real')
  })
  const registry = new ToolRegistry()
  const { lines, logger } = recordingLogger()
  const report = await discoverTools({ dir, registry, logger })

  assert.deepEqual(report.registeredNothing, [join(dir, 'impostor.ts')])
  assert.deepEqual(report.imported, [join(dir, 'real.ts')])
  const warning = lines.find((line) => line.level === 'warn')
  assert.equal(warning?.obj.file, join(dir, 'impostor.ts'))
  assert.match(warning?.msg ?? '', /imported but registered no tool/)
  assert.deepEqual(lines.find((line) => line.msg === 'tool discovery done')?.obj,
    { dirs: [dir], imported: 1, registeredNothing: 1, skipped: 0, ignored: 0, tools: ['real_tool'] })
})
