// What starts a reload: SIGHUP to the real server process (which keeps running, and serves the
// tool added meanwhile), and, when reload.watchConfig is on, a change of the config file, whether
// written in place or renamed over it as editors do; a burst of writes reloads once.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startGatewayProcess } from '../mcp-client/helpers/gateway-process.ts'
import { until } from '../mcp-client/helpers/wait.ts'
import { buildReloadApp, toolModule } from './helpers.ts'

test('SIGHUP reloads a running server: a tool added to its folder is served, a bad file is refused, the process lives on', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-sighup-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const configFile = join(dir, 'gateway.yaml')
  await writeFile(configFile, 'logLevel: info\n')
  const gateway = await startGatewayProcess(t, dir, configFile)
  const names = async (): Promise<string[]> => {
    const res = await fetch(`${gateway.base}/definitions`)
    return ((await res.json()) as Array<{ function: { name: string } }>).map((tool) => tool.function.name)
  }
  assert.deepEqual(await names(), [])

  await writeFile(join(dir, 'tools', 'hello.mjs'), toolModule('hello', 'hello from a reload'))
  gateway.child.kill('SIGHUP')
  await until(() => gateway.output().includes('"msg":"configuration reloaded"'), 'the reload log line', 20_000)
  assert.deepEqual(await names(), ['hello'])
  const res = await fetch(`${gateway.base}/dispatch/hello`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
  assert.equal(((await res.json()) as { content: string }).content, 'hello from a reload')

  await writeFile(configFile, 'logLevel: loud\n')
  gateway.child.kill('SIGHUP')
  await until(() => gateway.output().includes('configuration reload refused'), 'the refusal', 20_000)
  assert.match(gateway.output(), /logLevel: must be equal to one of the allowed values[^"]*got \\"loud\\"/)
  assert.equal(gateway.child.exitCode, null)
  assert.equal((await fetch(`${gateway.base}/healthz`)).status, 200)
})

test('with reload.watchConfig, a change of the file reloads once per burst, a rename over it too', async (t) => {
  const { app, configFile, log } = await buildReloadApp(t, 'reload: { watchConfig: true, debounceMs: 250 }\n')
  const reloads = (): number => log.lines().filter((line) => line.msg === 'configuration reloaded').length
  assert.equal(reloads(), 0)
  for (const timeout of [1000, 2000, 3000]) {
    await writeFile(configFile, `reload: { watchConfig: true, debounceMs: 250 }\ndispatch: { defaultTimeoutMs: ${timeout} }\n`)
  }
  await until(() => reloads() === 1, 'a reload after the writes')
  assert.equal(app.gateway.dispatcher.limits.defaultTimeoutMs, 3000)
  await new Promise((resolve) => setTimeout(resolve, 600))
  assert.equal(reloads(), 1, 'one reload for the burst')

  const replacement = `${configFile}.new`
  await writeFile(replacement, 'reload: { watchConfig: true, debounceMs: 250 }\ndispatch: { defaultTimeoutMs: 4000 }\n')
  await rename(replacement, configFile)
  await until(() => reloads() === 2, 'the reload after the rename')
  assert.equal(app.gateway.dispatcher.limits.defaultTimeoutMs, 4000)
})

test('without reload.watchConfig a change of the file does nothing until asked', async (t) => {
  const { app, configFile, log } = await buildReloadApp(t, 'dispatch: { defaultTimeoutMs: 1000 }\n')
  await writeFile(configFile, 'dispatch: { defaultTimeoutMs: 2000 }\n')
  await new Promise((resolve) => setTimeout(resolve, 600))
  assert.equal(log.lines().filter((line) => line.msg === 'configuration reloaded').length, 0)
  assert.equal(app.gateway.dispatcher.limits.defaultTimeoutMs, 1000)
})
