// Tool modules between reloads: real files in a temp tools folder added, changed and removed, the
// registry generation and the /definitions ETag moving only when the catalogue does, a call in
// flight finishing on the version it started with, and reloads asked for at once run one by one.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { buildReloadApp, toolModule } from './helpers.ts'

const globals = globalThis as unknown as Record<string, unknown>

async function definitions (app: Awaited<ReturnType<typeof buildReloadApp>>['app']): Promise<{ etag: string, names: string[] }> {
  const res = await app.inject({ method: 'GET', url: '/definitions' })
  assert.equal(res.statusCode, 200)
  const names = (res.json() as Array<{ function: { name: string } }>).map((tool) => tool.function.name)
  return { etag: String(res.headers.etag), names }
}

async function call (app: Awaited<ReturnType<typeof buildReloadApp>>['app'], name: string): Promise<{ statusCode: number, content: string }> {
  const res = await app.inject({ method: 'POST', url: `/dispatch/${name}`, payload: {} })
  return { statusCode: res.statusCode, content: (res.json() as { content: string }).content }
}

test('a reload registers new modules, re-imports changed ones and removes deleted ones; nothing changed keeps the ETag', async (t) => {
  const { app, tools, log } = await buildReloadApp(t)
  await writeFile(join(tools, 'alpha.mjs'), toolModule('alpha', 'alpha v1'))
  let report = await app.reload()
  assert.equal(report.ok, true)
  assert.ok(report.ok)
  assert.deepEqual(report.tools.added, ['alpha'])
  const first = await definitions(app)
  assert.deepEqual(first.names, ['alpha'])
  assert.equal((await call(app, 'alpha')).content, 'alpha v1')

  // Nothing changed: same generation, same ETag, a 304 for the client that has it.
  const generation = app.gateway.registry.generation
  report = await app.reload()
  assert.ok(report.ok)
  assert.deepEqual([report.tools.added, report.tools.updated, report.tools.removed], [[], [], []])
  assert.equal(app.gateway.registry.generation, generation)
  const again = await app.inject({ method: 'GET', url: '/definitions', headers: { 'if-none-match': first.etag } })
  assert.equal(again.statusCode, 304)

  // Changed and added in one reload: one registry change.
  await writeFile(join(tools, 'alpha.mjs'), toolModule('alpha', 'alpha v2', { description: 'The alpha tool, second edition' }))
  await writeFile(join(tools, 'beta.mjs'), toolModule('beta', 'beta v1'))
  report = await app.reload()
  assert.ok(report.ok)
  assert.deepEqual(report.tools.added, ['beta'])
  assert.deepEqual(report.tools.updated, ['alpha'])
  assert.equal(app.gateway.registry.generation, generation + 1)
  const second = await definitions(app)
  assert.deepEqual(second.names.sort(), ['alpha', 'beta'])
  assert.notEqual(second.etag, first.etag)
  assert.equal((await call(app, 'alpha')).content, 'alpha v2')
  // The replaced instance was told to let go of what it holds.
  assert.ok((globals.__disposed as string[]).includes('alpha:alpha v1'))

  await rm(join(tools, 'beta.mjs'))
  report = await app.reload()
  assert.ok(report.ok)
  assert.deepEqual(report.tools.removed, ['beta'])
  assert.equal((await call(app, 'beta')).statusCode, 404)
  assert.deepEqual((await definitions(app)).names, ['alpha'])

  const line = log.lines().findLast((one) => one.msg === 'configuration reloaded')
  assert.deepEqual((line?.tools as { removed: string[] }).removed, ['beta'])
})

test('a module that no longer loads keeps its running version, and the log says why', async (t) => {
  const { app, tools, log } = await buildReloadApp(t)
  await writeFile(join(tools, 'gamma.mjs'), toolModule('gamma', 'gamma v1'))
  await app.reload()
  await writeFile(join(tools, 'gamma.mjs'), 'import { registry } from "tool-gateway/registry"\nregistry.register({ name: "gamma", \n')
  const report = await app.reload()
  assert.ok(report.ok)
  assert.deepEqual(report.tools.failed.map(({ file }) => file), [join(tools, 'gamma.mjs')])
  assert.equal((await call(app, 'gamma')).content, 'gamma v1')
  const line = log.lines().find((one) => one.msg === 'tool reload: module cannot be loaded, its running version is kept')
  assert.equal(line?.file, join(tools, 'gamma.mjs'))
  assert.match(String(line?.err), /line 3/)
})

test('a call in flight finishes with the version it started with; the old one is released after it', async (t) => {
  const { app, tools } = await buildReloadApp(t)
  await writeFile(join(tools, 'slow.mjs'), toolModule('slow', 'slow v1', { slow: true }))
  await app.reload()
  const started = Promise.withResolvers<void>()
  globals.__started = () => started.resolve()
  const inFlight = call(app, 'slow')
  await started.promise
  const releaseFirst = globals.__release_slow as () => void

  await writeFile(join(tools, 'slow.mjs'), toolModule('slow', 'slow v2', { slow: true }))
  const report = await app.reload()
  assert.ok(report.ok)
  assert.deepEqual(report.tools.updated, ['slow'])
  // The first call still runs on v1, which is not disposed while it does.
  assert.equal(((globals.__disposed ?? []) as string[]).includes('slow:slow v1'), false)

  releaseFirst()
  assert.deepEqual(await inFlight, { statusCode: 200, content: 'slow v1' })
  await new Promise((resolve) => setImmediate(resolve))
  assert.ok((globals.__disposed as string[]).includes('slow:slow v1'))

  const secondStarted = Promise.withResolvers<void>()
  globals.__started = () => secondStarted.resolve()
  const next = call(app, 'slow')
  await secondStarted.promise
  ;(globals.__release_slow as () => void)()
  assert.deepEqual(await next, { statusCode: 200, content: 'slow v2' })
})

test('reloads asked for while one runs are served one after another, the waiting ones by one pass', async (t) => {
  const { app, tools, log } = await buildReloadApp(t)
  await writeFile(join(tools, 'delta.mjs'), toolModule('delta', 'delta v1'))
  const first = app.reload()
  // Asked for at once, before the first pass starts: they share it.
  assert.equal(app.reload(), first)
  // Once the pass is under way (reading the file, scanning the folder), a request waits for the next.
  await new Promise((resolve) => setImmediate(resolve))
  const second = app.reload()
  const third = app.reload()
  assert.notEqual(first, second)
  assert.equal(second, third)
  const reports = await Promise.all([first, second, third])
  assert.ok(reports[0].ok && reports[1].ok)
  assert.deepEqual(reports[0].ok && reports[0].tools.added, ['delta'])
  // The second pass started after the first had registered delta: nothing left to add.
  assert.deepEqual(reports[1].ok && reports[1].tools.added, [])
  assert.equal(log.lines().filter((line) => line.msg === 'configuration reloaded').length, 2)
})
