// Discovery remembers its verdicts between starts (src/discovery/verdict-cache.ts): a second pass
// over unchanged modules analyses nothing and reports the same, a changed module is analysed again,
// and a cache folder that cannot be used (not creatable, writable by others, corrupt file) changes
// nothing but the time discovery takes.
import assert from 'node:assert/strict'
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { discoverTools, type DiscoveryReport } from '../../src/discovery/discover.ts'
import { ToolRegistry } from '../../src/registry/registry.ts'
import { recordingLogger } from '../helpers/logger.ts'

const registryIndexUrl = pathToFileURL(resolve(dirname(fileURLToPath(import.meta.url)), '../../src/registry/index.ts')).href

function toolModule (name: string): string {
  return `import { registry } from '${registryIndexUrl}'\n` +
    `registry.register({ name: '${name}', toolset: 'test', schema: { parameters: { type: 'object', properties: {} } }, handler: () => '{}' })\n`
}

async function tempDir (t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-verdicts-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return dir
}

async function toolFolder (root: string): Promise<string> {
  const tools = join(root, 'tools')
  await mkdir(tools)
  await writeFile(join(tools, 'alpha.ts'), toolModule('alpha'))
  await writeFile(join(tools, 'helper.ts'), 'export const twice = (x: number) => x * 2\n')
  await writeFile(join(tools, 'broken.ts'), 'registry.register({ name: "b" }\nconst = 1\n')
  return tools
}

/** One discovery pass into a new registry, with how many verdicts it took from the cache and how many it analysed. */
async function pass (dir: string, cacheDir: string): Promise<{ report: DiscoveryReport, remembered?: number, analysed?: number }> {
  const { lines, logger } = recordingLogger()
  const report = await discoverTools({ dir, registry: new ToolRegistry(), logger, cacheDir })
  const counts = lines.find((line) => line.msg === 'tool discovery: module verdicts')?.obj as { remembered: number, analysed: number } | undefined
  return { report, ...counts }
}

test('a second pass over unchanged modules takes every verdict from the cache and reports the same', async (t) => {
  const root = await tempDir(t)
  const tools = await toolFolder(root)
  const cacheDir = join(root, 'cache')

  const first = await pass(tools, cacheDir)
  assert.deepEqual([first.remembered, first.analysed], [0, 3])
  assert.deepEqual(first.report.tools, ['alpha'])
  const second = await pass(tools, cacheDir)
  assert.deepEqual([second.remembered, second.analysed], [3, 0])
  assert.deepEqual(second.report, first.report)
  // Only its owner may write there (a verdict decides which files are imported); no temporary file is left.
  assert.equal((await stat(cacheDir)).mode & 0o777, 0o700)
  assert.deepEqual(await readdir(cacheDir), ['discovery-verdicts.json'])
})

test('a module whose text changed is analysed again: a helper that now registers is imported', async (t) => {
  const root = await tempDir(t)
  const tools = await toolFolder(root)
  const cacheDir = join(root, 'cache')
  await pass(tools, cacheDir)

  await writeFile(join(tools, 'helper.ts'), toolModule('beta'))
  const again = await pass(tools, cacheDir)
  assert.deepEqual([again.remembered, again.analysed], [2, 1])
  assert.deepEqual(again.report.tools, ['alpha', 'beta'])
  assert.deepEqual(again.report.ignored, [])
})

test('an unusable cache folder changes nothing but the time: not creatable, writable by others', async (t) => {
  const root = await tempDir(t)
  const tools = await toolFolder(root)
  const expected = (await pass(tools, join(root, 'fine'))).report

  // Beneath a file (what a read-only file system does to mkdir, even for root).
  await writeFile(join(root, 'a-file'), '')
  const underFile = await pass(tools, join(root, 'a-file', 'cache'))
  assert.equal(underFile.remembered, undefined)
  assert.deepEqual(underFile.report, expected)

  // Where a recursive mkdir would spin for ever, in a folder of the kernel's.
  if (process.platform === 'linux') assert.deepEqual((await pass(tools, '/proc/gw-no-cache')).report, expected)

  // A folder others can write to is never trusted, nor written to.
  const shared = join(root, 'shared')
  await mkdir(shared)
  await chmod(shared, 0o777)
  for (let i = 0; i < 2; i++) assert.deepEqual((await pass(tools, shared)).report, expected)
  assert.deepEqual(await readdir(shared), [])
})

test('a corrupt or foreign cache file is ignored and replaced', async (t) => {
  const root = await tempDir(t)
  const tools = await toolFolder(root)
  const cacheDir = join(root, 'cache')
  await mkdir(cacheDir, { mode: 0o700 })
  const file = join(cacheDir, 'discovery-verdicts.json')

  for (const text of ['{ not json', JSON.stringify({ format: 2, analysis: 'another', entries: {} }), '[]']) {
    await writeFile(file, text)
    const run = await pass(tools, cacheDir)
    assert.deepEqual([run.remembered, run.analysed], [0, 3])
    assert.deepEqual(run.report.tools, ['alpha'])
    assert.match(await readFile(file, 'utf8'), /"entries":\{/)
  }
})

test('verdicts written by another parser or other rules are not used: the modules are analysed again', async (t) => {
  const root = await tempDir(t)
  const tools = await toolFolder(root)
  const cacheDir = join(root, 'cache')
  const file = join(cacheDir, 'discovery-verdicts.json')
  await pass(tools, cacheDir)
  const written = JSON.parse(await readFile(file, 'utf8')) as { analysis: string, entries: Record<string, unknown> }
  assert.equal(Object.keys(written.entries).length, 3)
  await writeFile(file, JSON.stringify({ ...written, analysis: `${written.analysis} changed` }))
  const run = await pass(tools, cacheDir)
  assert.deepEqual([run.remembered, run.analysed], [0, 3])
  assert.deepEqual(run.report.tools, ['alpha'])
})
