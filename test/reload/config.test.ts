// The configuration between reloads: a bad file keeps everything as it runs and the log names the
// field; settings read at call time take effect (limits, overrides, toolsets, keys); settings baked
// in at start keep their running value and the warning names each of them.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { buildReloadApp, toolModule } from './helpers.ts'

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')

test('a bad configuration is refused whole: the log names the field, nothing running changes', async (t) => {
  const { app, tools, configFile, log } = await buildReloadApp(t, 'dispatch:\n  defaultTimeoutMs: 1234\n')
  await writeFile(join(tools, 'eps.mjs'), toolModule('eps', 'eps v1'))
  await writeFile(configFile, 'dispatch:\n  defaultTimeoutMs: soon\nport: 99999\n')
  const generation = app.gateway.registry.generation
  const report = await app.reload()
  assert.equal(report.ok, false)
  assert.ok(!report.ok)
  assert.match(report.error, /dispatch\.defaultTimeoutMs: .*got "soon"/)
  assert.match(report.error, /port: .*99999/)
  const line = log.lines().find((one) => one.level === 50 && String(one.msg).startsWith('configuration reload refused'))
  assert.ok(line, 'an error line')
  assert.ok((line.problems as string[]).some((problem) => problem.startsWith('dispatch.defaultTimeoutMs:')))
  // Not even the tool folder was looked at: the running state is the one before.
  assert.equal(app.gateway.registry.generation, generation)
  assert.equal(app.gateway.registry.getEntry('eps'), undefined)
  assert.equal(app.gateway.dispatcher.limits.defaultTimeoutMs, 1234)

  // A custom toolset that redefines a builtin one fails at start, so it is refused here too.
  await writeFile(configFile, 'toolsets:\n  file: { tools: [eps] }\n')
  const redefined = await app.reload()
  assert.ok(!redefined.ok)
  assert.match(redefined.error, /"file" is a builtin toolset/)

  await writeFile(configFile, 'dispatch:\n  defaultTimeoutMs: 2345\n')
  const fixed = await app.reload()
  assert.ok(fixed.ok)
  assert.deepEqual(fixed.tools.added, ['eps'])
  assert.equal(app.gateway.dispatcher.limits.defaultTimeoutMs, 2345)
})

test('settings read at call time apply; those fixed at start are kept and named as needing a restart', async (t) => {
  const { app, tools, configFile, log } = await buildReloadApp(t, 'http:\n  bodyLimitBytes: 2048\n')
  await writeFile(join(tools, 'zeta.mjs'), toolModule('zeta', 'zeta v1', { slow: true }))
  await app.reload()
  await writeFile(configFile, [
    'http:',
    '  bodyLimitBytes: 4096',
    'port: 9999',
    'tools:',
    '  zeta: { timeoutMs: 50 }',
    'dispatch:',
    '  maxResultChars: 77',
    'toolsets:',
    '  mine: { tools: [zeta] }',
    // Plugins are not reloaded: named, never loaded by the reload.
    'plugins: [./not-loaded-by-a-reload.js]',
    ''
  ].join('\n'))
  const report = await app.reload()
  assert.ok(report.ok)
  assert.deepEqual(report.applied, ['dispatch', 'tools', 'toolsets'])
  assert.deepEqual(report.needsRestart, ['http.bodyLimitBytes', 'plugins', 'port'])
  const warning = log.lines().find((one) => one.level === 40 && String(one.msg).includes('needs a restart'))
  assert.deepEqual(warning?.fields, ['http.bodyLimitBytes', 'plugins', 'port'])
  assert.notEqual(app.gateway.config.port, 9999)
  assert.equal(app.gateway.config.http.bodyLimitBytes, 2048)

  // The per-tool override is read at the call: zeta now times out after 50 ms.
  const timedOut = await app.inject({ method: 'POST', url: '/dispatch/zeta', payload: {} })
  assert.equal(timedOut.statusCode, 504)
  ;((globalThis as unknown as Record<string, () => void>).__release_zeta)()
  assert.equal(app.gateway.dispatcher.limits.maxResultChars, 77)
  // The new custom toolset resolves, and /definitions answers it.
  const mine = await app.inject({ method: 'GET', url: '/definitions?toolsets=mine' })
  assert.equal(mine.statusCode, 200)
  assert.deepEqual((mine.json() as Array<{ function: { name: string } }>).map((tool) => tool.function.name), ['zeta'])
})

test('a toolset change alone moves the generation and the ETag of the answers it changes', async (t) => {
  const { app, tools, configFile } = await buildReloadApp(t, 'toolsets:\n  mine: { tools: [one] }\n')
  await writeFile(join(tools, 'one.mjs'), toolModule('one', '1'))
  await writeFile(join(tools, 'two.mjs'), toolModule('two', '2'))
  await app.reload()
  const before = await app.inject({ method: 'GET', url: '/definitions?toolsets=mine' })
  const generation = app.gateway.registry.generation
  await writeFile(configFile, 'toolsets:\n  mine: { tools: [one, two] }\n')
  const report = await app.reload()
  assert.ok(report.ok)
  assert.deepEqual(report.applied, ['toolsets'])
  assert.ok(app.gateway.registry.generation > generation)
  const after = await app.inject({ method: 'GET', url: '/definitions?toolsets=mine', headers: { 'if-none-match': String(before.headers.etag) } })
  assert.equal(after.statusCode, 200)
  assert.notEqual(after.headers.etag, before.headers.etag)
  assert.equal((after.json() as unknown[]).length, 2)
})

test('API keys: a new key works and a removed one is refused after the reload; going keyless needs a restart', async (t) => {
  const keys = (names: string[]): string => `auth:\n  keys:\n${names.map((name) => `    - { name: ${name}, sha256: ${sha256(`key-${name}`)} }`).join('\n')}\n`
  const { app, configFile } = await buildReloadApp(t, keys(['old']))
  const status = async (name: string): Promise<number> =>
    (await app.inject({ method: 'GET', url: '/toolsets', headers: { authorization: `Bearer key-${name}` } })).statusCode
  assert.equal(await status('old'), 200)
  assert.equal(await status('new'), 401)
  await writeFile(configFile, keys(['new']))
  const report = await app.reload()
  assert.ok(report.ok)
  assert.deepEqual(report.applied, ['auth.keys'])
  assert.equal(await status('new'), 200)
  assert.equal(await status('old'), 401)

  await writeFile(configFile, '')
  const open = await app.reload()
  assert.ok(open.ok)
  assert.deepEqual(open.needsRestart, ['auth.keys'])
  assert.equal(await status('new'), 200)
  assert.equal((await app.inject({ method: 'GET', url: '/toolsets' })).statusCode, 401)
})

test('a reload swaps the configuration whole: the one before is left as it was, and a call under way keeps the one it started with', async (t) => {
  const { app, tools, configFile } = await buildReloadApp(t, 'dispatch:\n  maxResultChars: 500\n')
  // Answers what its ctx.config says once released, having read nothing before.
  await writeFile(join(tools, 'holder.mjs'), `import { registry } from 'tool-gateway/registry'
registry.register({
  name: 'holder',
  toolset: 'reloadable',
  schema: { description: 'Answers its configuration', parameters: { type: 'object', properties: {} } },
  handler: async (_args, ctx) => {
    globalThis.__holding?.()
    await new Promise((resolve) => { globalThis.__release_holder = resolve })
    return JSON.stringify({ maxResultChars: ctx.config.dispatch.maxResultChars, override: ctx.config.tools.holder ?? null })
  }
})
`)
  await app.reload()
  const before = app.gateway.config
  const globals = globalThis as unknown as Record<string, (() => void) | undefined>
  const holding = new Promise<void>((resolve) => { globals.__holding = resolve })
  const during = app.inject({ method: 'POST', url: '/dispatch/holder', payload: {} })
  await holding
  await writeFile(configFile, 'dispatch:\n  maxResultChars: 900\ntools:\n  holder: { maxResultSizeChars: 800 }\n')
  const report = await app.reload()
  assert.ok(report.ok)
  assert.deepEqual(report.applied, ['dispatch', 'tools'])
  globals.__release_holder?.()
  assert.deepEqual(JSON.parse((await during).json<{ content: string }>().content), { maxResultChars: 500, override: null })

  assert.notEqual(app.gateway.config, before)
  assert.equal(before.dispatch.maxResultChars, 500, 'the configuration before the reload was not edited')
  assert.deepEqual(before.tools, {})
  assert.equal(app.gateway.config.dispatch.maxResultChars, 900)
  assert.equal(app.gateway.dispatcher.limits.maxResultChars, 900)
  // Only what applies changed: the rest of the new object is the running one's.
  assert.equal(app.gateway.config.http, before.http)

  const next = app.inject({ method: 'POST', url: '/dispatch/holder', payload: {} })
  await new Promise<void>((resolve) => { globals.__holding = resolve })
  globals.__release_holder?.()
  assert.deepEqual(JSON.parse((await next).json<{ content: string }>().content), { maxResultChars: 900, override: { maxResultSizeChars: 800 } })
})
