// Tests of loadPlugins with plugin modules written into temp folders, a real registry, hooks,
// dispatcher and definitions builder: every registration option honoured, the three hooks driven
// through real calls, load errors logged, skipped and rolled back, packages found beside the config.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { hookOwnerOf } from '../../src/plugins/loader.ts'
import type { PluginContext } from '../../src/plugins/types.ts'
import { pluginSetup } from './setup.ts'

const OBJECT = '{ type: "object", properties: { text: { type: "string" } } }'

/** A plugin module registering one tool that answers `answer`. */
function toolPlugin (tool: string, answer: string, extra = ''): string {
  return `export function register (ctx) {
  ctx.registerTool({ name: ${JSON.stringify(tool)}, schema: { description: 'd', parameters: ${OBJECT} },
    handler: async () => ${JSON.stringify(answer)}${extra} })
}
`
}

test('a plugin tool keeps every registration option; maxResultSizeChars and dynamicSchemaOverrides are honoured', async (t) => {
  const s = await pluginSetup(t)
  await s.write('big.mjs', `export function register (ctx) {
  ctx.registerTool({
    name: 'big_output',
    schema: { description: 'static', parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } },
    handler: async ({ n }) => 'a'.repeat(n / 2) + 'z'.repeat(n / 2),
    maxResultSizeChars: 100,
    dynamicSchemaOverrides: () => ({ description: 'dynamic ' + ctx.options.label }),
    checkFn: () => ({ available: true }),
    requiresEnv: ['BIG_TOKEN'],
    timeoutMs: 1234,
    emoji: '📦',
    annotations: { readOnly: true, openWorld: false, title: 'Big output' },
    origin: { kind: 'builtin' }
  })
}
`)
  const report = await s.load([{ module: './big.mjs', options: { label: 'L' } }])
  assert.deepEqual(report.failed, [])
  assert.deepEqual(report.loaded.map(({ name, module, tools, hooks }) => ({ name, module, tools, hooks })),
    [{ name: 'big', module: './big.mjs', tools: ['big_output'], hooks: [] }])
  assert.equal(report.loaded[0].file, join(s.dir, 'big.mjs'))

  const entry = s.registry.getEntry('big_output')!
  assert.deepEqual(entry.origin, { kind: 'plugin', plugin: 'big', allowToolOverride: false }, 'origin forced, the claimed one ignored')
  assert.equal(entry.toolset, 'big', 'toolset defaults to the plugin name')
  assert.equal(entry.timeoutMs, 1234)
  assert.deepEqual(entry.requiresEnv, ['BIG_TOKEN'])
  assert.equal(entry.emoji, '📦')
  assert.deepEqual(entry.annotations, { readOnly: true, openWorld: false, title: 'Big output' })
  assert.equal(typeof entry.checkFn, 'function')

  const outcome = await s.call({ name: 'big_output', args: { n: 1000 } })
  assert.equal(outcome.status, 'ok')
  assert.equal(outcome.truncated, true)
  assert.equal(outcome.originalLength, 1000)
  assert.ok(outcome.content.length <= 100, `capped at 100, got ${outcome.content.length}`)
  assert.match(outcome.content, /^a+[^]*truncated[^]*z+$/)

  const [definition] = (await s.definitions.build(['big_output'])).tools
  assert.equal(definition.function.description, 'dynamic L')
  assert.equal(definition.function.name, 'big_output')
})

test('a plugin may pick its toolset, including a static one', async (t) => {
  const s = await pluginSetup(t)
  await s.write('web-extra.mjs', toolPlugin('web_archive', '"ok"', ", toolset: 'web'"))
  await s.load(['./web-extra.mjs'])
  assert.equal(s.registry.getEntry('web_archive')!.toolset, 'web')
})

test('each hook kind, registered by a plugin, runs on real calls', async (t) => {
  const s = await pluginSetup(t)
  await s.write('hooked.mjs', `export function register (ctx) {
  const seen = ctx.options.seen
  ctx.registerTool({ name: 'echo', schema: { parameters: ${OBJECT} }, handler: async ({ text }) => text })
  ctx.registerTool({ name: 'forbidden', schema: { parameters: ${OBJECT} }, handler: async () => { seen.push('forbidden ran'); return 'no' } })
  ctx.registerHook('pre_tool_call', (event) => {
    seen.push('pre ' + event.tool)
    if (event.tool === 'forbidden') return { action: 'block', message: 'forbidden by the hooked plugin' }
  })
  ctx.registerHook('post_tool_call', (event) => { seen.push('post ' + event.tool + ' ' + event.status + ' ' + typeof event.durationMs) })
  ctx.registerHook('transform_tool_result', (event) => event.tool === 'echo' ? event.result.toUpperCase() : undefined)
}
`)
  const seen: string[] = []
  const report = await s.load([{ module: './hooked.mjs', options: { seen } }])
  assert.deepEqual(report.loaded[0].hooks, ['pre_tool_call', 'post_tool_call', 'transform_tool_result'])

  const echoed = await s.call({ name: 'echo', args: { text: 'hello' } })
  assert.equal(echoed.status, 'ok')
  assert.equal(echoed.content, 'HELLO')

  const blocked = await s.call({ name: 'forbidden', args: {} })
  assert.equal(blocked.status, 'blocked')
  assert.deepEqual(JSON.parse(blocked.content), { error: 'forbidden by the hooked plugin' })
  assert.deepEqual(seen, ['pre echo', 'post echo ok number', 'pre forbidden', 'post forbidden blocked number'])
  const blockLine = s.log.lines().find((line) => line.msg === 'tool call blocked by a pre_tool_call hook')
  assert.equal(blockLine?.owner, hookOwnerOf('hooked'))
})

test('hooks of several plugins run in config order', async (t) => {
  const s = await pluginSetup(t)
  const blocker = (who: string) => `export function register (ctx) {
  ctx.registerHook('pre_tool_call', () => ({ action: 'block', message: 'blocked by ${who}' }))
}
`
  await s.write('tools.mjs', toolPlugin('probe', '"ran"'))
  await s.write('second.mjs', blocker('second'))
  await s.write('first.mjs', blocker('first'))
  await s.load(['./tools.mjs', './first.mjs', './second.mjs'])
  const outcome = await s.call({ name: 'probe', args: {} })
  assert.deepEqual(JSON.parse(outcome.content), { error: 'blocked by first' })
})

test('an unknown hook name is a load error naming the valid hooks; what the plugin registered is removed', async (t) => {
  const s = await pluginSetup(t)
  await s.write('typo.mjs', `export function register (ctx) {
  ctx.registerTool({ name: 'typo_tool', schema: { parameters: ${OBJECT} }, handler: async () => 'x' })
  ctx.registerHook('post_tool_call', () => {})
  ctx.registerHook('before_call', () => {})
}
`)
  // Catching the error does not save the plugin: the gateway refused part of it.
  await s.write('sneaky.mjs', `export function register (ctx) {
  ctx.registerTool({ name: 'sneaky_tool', schema: { parameters: ${OBJECT} }, handler: async () => 'x' })
  try { ctx.registerHook('after_everything', () => {}) } catch {}
}
`)
  const report = await s.load(['./typo.mjs', './sneaky.mjs'])
  assert.deepEqual(report.loaded, [])
  assert.equal(report.failed.length, 2)
  for (const [failure, hook] of [[report.failed[0], 'before_call'], [report.failed[1], 'after_everything']] as const) {
    assert.match(failure.error, new RegExp(`unknown hook "${hook}"`))
    assert.match(failure.error, /pre_tool_call, post_tool_call, transform_tool_result/)
  }
  assert.deepEqual(report.failed.map((f) => f.name), ['typo', 'sneaky'])
  assert.equal(s.registry.getEntry('typo_tool'), undefined)
  assert.equal(s.registry.getEntry('sneaky_tool'), undefined)
  assert.equal(s.hooks.has('post_tool_call'), false)
})

/** A built-in tool `shared` in toolset `core` that answers "builtin". */
function registerBuiltin (s: Awaited<ReturnType<typeof pluginSetup>>): void {
  s.registry.register({
    name: 'shared', toolset: 'core', schema: { parameters: { type: 'object' } }, handler: async () => 'builtin', annotations: { readOnly: true }
  })
}

const OVERRIDER = `export function register (ctx) {
  ctx.registerTool({ name: 'shared', override: true, schema: { parameters: { type: 'object' } }, handler: async () => 'plugin' })
}
`

test('an override is refused without allowToolOverride, and the plugin is skipped', async (t) => {
  const s = await pluginSetup(t)
  registerBuiltin(s)
  await s.write('over.mjs', OVERRIDER)
  const report = await s.load(['./over.mjs'])
  assert.equal(report.loaded.length, 0)
  assert.match(report.failed[0].error, /plugin "over" cannot override "shared".*allowToolOverride/)
  assert.deepEqual(s.registry.getEntry('shared')!.origin, { kind: 'builtin' })
  assert.equal((await s.call({ name: 'shared', args: {} })).content, 'builtin')
})

test('an override is accepted with allowToolOverride', async (t) => {
  const s = await pluginSetup(t)
  registerBuiltin(s)
  await s.write('over.mjs', OVERRIDER)
  const report = await s.load([{ module: './over.mjs', allowToolOverride: true }])
  assert.deepEqual(report.failed, [])
  assert.deepEqual(s.registry.getEntry('shared')!.origin, { kind: 'plugin', plugin: 'over', allowToolOverride: true })
  assert.equal((await s.call({ name: 'shared', args: {} })).content, 'plugin')
})

test('allowToolOverride alone does not replace a tool: the plugin must also ask with override', async (t) => {
  const s = await pluginSetup(t)
  registerBuiltin(s)
  await s.write('quiet.mjs', toolPlugin('shared', 'plugin'))
  const report = await s.load([{ module: './quiet.mjs', allowToolOverride: true }])
  assert.match(report.failed[0].error, /override: true/)
  assert.equal((await s.call({ name: 'shared', args: {} })).content, 'builtin')
})

test('a plugin that throws is logged, skipped and rolled back; the others load', async (t) => {
  const s = await pluginSetup(t)
  await s.write('good-one.mjs', toolPlugin('good_one', 'one'))
  await s.write('broken.mjs', `export async function register (ctx) {
  ctx.registerTool({ name: 'half_done', schema: { parameters: ${OBJECT} }, handler: async () => 'x', dispose: () => { ctx.options.disposed.push('half_done') } })
  ctx.registerHook('transform_tool_result', () => 'hijacked')
  await new Promise((resolve) => setImmediate(resolve))
  throw new Error('database unreachable')
}
`)
  await s.write('good-two.mjs', toolPlugin('good_two', 'two'))
  const disposed: string[] = []
  const report = await s.load(['./good-one.mjs', { module: './broken.mjs', options: { disposed } }, './good-two.mjs'])

  assert.deepEqual(report.loaded.map((p) => p.name), ['good-one', 'good-two'])
  assert.deepEqual(report.failed, [{ module: './broken.mjs', name: 'broken', error: 'database unreachable' }])
  assert.equal(s.registry.getEntry('half_done'), undefined)
  assert.deepEqual(disposed, ['half_done'], 'the rolled-back tool released what it held')
  assert.equal(s.hooks.has('transform_tool_result'), false)
  assert.equal((await s.call({ name: 'good_one', args: {} })).content, 'one')
  assert.equal((await s.call({ name: 'good_two', args: {} })).content, 'two')

  const line = s.log.lines().find((l) => l.msg === 'plugin failed to load; skipped (its tools and hooks removed)')
  assert.ok(line, 'the failure is logged')
  assert.equal(line.level, 50)
  assert.equal(line.plugin, 'broken')
  assert.deepEqual(line.rolledBack, ['half_done'])
  const err = line.err as { message: string, code: string, plugin: string, stack: string }
  assert.deepEqual([err.code, err.plugin, err.message], ['GW_ERR_PLUGIN_LOAD', 'broken', 'plugin "broken" failed to load: database unreachable'],
    'a PluginLoadError naming the plugin, the plugin\'s own error as its cause')
  assert.match(err.stack, /caused by: Error: database unreachable\n\s+at register .*broken\.mjs/)
})

test('a required plugin that fails to load fails the whole load, naming it; what it registered is removed', async (t) => {
  const s = await pluginSetup(t)
  await s.write('first.mjs', toolPlugin('first_tool', 'one'))
  await s.write('guard.mjs', `export function register (ctx) {
  ctx.registerTool({ name: 'guard_tool', schema: { parameters: ${OBJECT} }, handler: async () => 'x' })
  throw new Error('policy database unreachable')
}
`)
  await s.write('imports-badly.mjs', 'throw new Error("cannot load at all")\n')
  await s.write('after.mjs', toolPlugin('after_tool', 'two'))
  await assert.rejects(s.load(['./first.mjs', { module: './guard.mjs', required: true }, './after.mjs']), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'GW_ERR_PLUGIN_LOAD')
    assert.equal(err.message, 'required plugin "guard" failed to load: policy database unreachable')
    return true
  })
  assert.equal(s.registry.getEntry('guard_tool'), undefined)
  assert.equal(s.registry.getEntry('after_tool'), undefined, 'nothing loads after a required plugin failed')
  await assert.rejects(s.load([{ module: './imports-badly.mjs', required: true }]), /required plugin "imports-badly" failed to load: cannot load at all/)
  await assert.rejects(s.load([{ module: './absent.mjs', required: true }]), /required plugin "\.\/absent\.mjs" failed to load: .*module not found/)
  // Not required: the same failure is logged and skipped.
  const report = await s.load([{ module: './imports-badly.mjs', required: false }])
  assert.deepEqual(report.failed.map((f) => f.name), ['imports-badly'])
})

test('a failed override is undone: the replaced tool comes back', async (t) => {
  const s = await pluginSetup(t)
  registerBuiltin(s)
  await s.write('grabby.mjs', `export function register (ctx) {
  ctx.registerTool({ name: 'shared', override: true, schema: { parameters: { type: 'object' } }, handler: async () => 'plugin' })
  throw new Error('then it broke')
}
`)
  const report = await s.load([{ module: './grabby.mjs', allowToolOverride: true }])
  assert.equal(report.failed.length, 1)
  assert.deepEqual(s.registry.getEntry('shared')!.origin, { kind: 'builtin' })
  assert.equal(s.registry.getEntry('shared')!.toolset, 'core')
  assert.deepEqual(s.registry.getEntry('shared')!.annotations, { readOnly: true }, 'with its annotations')
  assert.equal((await s.call({ name: 'shared', args: {} })).content, 'builtin')
})

test('a failed override restores the alias its toolset lost', async (t) => {
  const s = await pluginSetup(t)
  s.registry.register({ name: 'mcp__srv__one', toolset: 'mcp-srv', schema: { parameters: { type: 'object' } }, handler: async () => 'mcp', origin: { kind: 'mcp', server: 'srv' } })
  s.registry.registerAlias('srv', 'mcp-srv')
  await s.write('taker.mjs', `export function register (ctx) {
  ctx.registerTool({ name: 'mcp__srv__one', override: true, schema: { parameters: { type: 'object' } }, handler: async () => 'plugin' })
  throw new Error('oops')
}
`)
  await s.load([{ module: './taker.mjs', allowToolOverride: true }])
  assert.deepEqual(s.registry.getEntry('mcp__srv__one')!.origin, { kind: 'mcp', server: 'srv' })
  assert.equal(s.registry.snapshot().aliases.get('srv'), 'mcp-srv')
})

test('missing modules, packages and register functions are clear load errors', async (t) => {
  const s = await pluginSetup(t)
  await s.write('no-register.mjs', 'export const something = 1\n')
  await s.write('fine.mjs', toolPlugin('fine', 'ok'))
  const report = await s.load(['./nope.mjs', './no-extension', 'gw-plugin-not-installed', 'fs', './no-register.mjs', './fine.mjs'])
  assert.deepEqual(report.loaded.map((p) => p.name), ['fine'])
  const errors = report.failed.map((f) => f.error)
  assert.match(errors[0], new RegExp(`plugin "./nope.mjs": module not found at ${join(s.dir, 'nope.mjs').replaceAll('/', '\\/')}`))
  assert.match(errors[1], /module not found .*give the file name with its extension/)
  assert.match(errors[2], /package "gw-plugin-not-installed" is not installed in a node_modules folder of .* or its parents/)
  assert.match(errors[3], /built-in module, not a plugin/)
  assert.match(errors[4], /exports no register\(ctx\) function/)
  const logged = s.log.lines().filter((l) => l.msg === 'plugin failed to load; skipped (its tools and hooks removed)')
  assert.deepEqual(logged.map((l) => (l.err as { code: string }).code), Array(5).fill('GW_ERR_PLUGIN_LOAD'))
  assert.deepEqual(logged.map((l) => (l.err as { plugin: string }).plugin), ['./nope.mjs', './no-extension', 'gw-plugin-not-installed', 'fs', './no-register.mjs'])
})

test('a module that fails to import (syntax error) is skipped', async (t) => {
  const s = await pluginSetup(t)
  await s.write('syntax.mjs', 'export function register (ctx) {\n')
  await s.write('fine.mjs', toolPlugin('fine', 'ok'))
  const report = await s.load(['./syntax.mjs', './fine.mjs'])
  assert.equal(report.failed[0].name, 'syntax')
  assert.match(report.failed[0].error, /SyntaxError|Unexpected/i)
  assert.deepEqual(report.loaded.map((p) => p.name), ['fine'])
})

test('installed packages are found in node_modules beside (or above) the base folder', async (t) => {
  const s = await pluginSetup(t)
  // ESM only, exported for "import" alone: require.resolve cannot find it, the loader must.
  await s.write('node_modules/gw-plugin-hello/package.json', JSON.stringify({
    name: 'gw-plugin-hello', type: 'module', exports: { '.': { types: './types.d.ts', import: './lib/main.js' }, './extra': './lib/extra.js' }
  }))
  await s.write('node_modules/gw-plugin-hello/lib/main.js', toolPlugin('hello', 'from the package'))
  await s.write('node_modules/gw-plugin-hello/lib/extra.js', `export default {
  register (ctx) { ctx.registerTool({ name: 'hello_extra', schema: { parameters: { type: 'object' } }, handler: async () => 'extra' }) }
}
`)
  // CommonJS with "main" and no "exports", under a scope.
  await s.write('node_modules/@acme/gw-tools/package.json', JSON.stringify({ name: '@acme/gw-tools', main: 'main.cjs' }))
  await s.write('node_modules/@acme/gw-tools/main.cjs', `module.exports = { register (ctx) {
  ctx.registerTool({ name: 'acme_tool', schema: { parameters: { type: 'object' } }, handler: async () => 'acme ' + ctx.name })
} }
`)
  const configDir = join(s.dir, 'config')
  const report = await s.load(['gw-plugin-hello', 'gw-plugin-hello/extra', '@acme/gw-tools'], { baseDir: configDir })
  assert.deepEqual(report.failed, [])
  assert.deepEqual(report.loaded.map((p) => [p.name, p.file]), [
    ['gw-plugin-hello', join(s.dir, 'node_modules/gw-plugin-hello/lib/main.js')],
    ['gw-plugin-hello/extra', join(s.dir, 'node_modules/gw-plugin-hello/lib/extra.js')],
    ['@acme/gw-tools', join(s.dir, 'node_modules/@acme/gw-tools/main.cjs')]
  ])
  assert.equal((await s.call({ name: 'hello', args: {} })).content, 'from the package')
  assert.equal((await s.call({ name: 'hello_extra', args: {} })).content, 'extra')
  assert.equal((await s.call({ name: 'acme_tool', args: {} })).content, 'acme @acme/gw-tools')
  assert.equal(s.registry.getEntry('acme_tool')!.toolset, '@acme/gw-tools')
})

test('a package that does not export what is asked is a clear error', async (t) => {
  const s = await pluginSetup(t)
  await s.write('node_modules/closed/package.json', JSON.stringify({ name: 'closed', exports: { './only': './only.js' } }))
  const report = await s.load(['closed', 'closed/other'])
  assert.match(report.failed[0].error, /package "closed" does not export "\." for import/)
  assert.match(report.failed[1].error, /package "closed" does not export "\.\/other" for import/)
})

test('plugin names come from the file, its folder for an index file, or the package; a duplicate is a load error', async (t) => {
  const s = await pluginSetup(t)
  await s.write('a/audit.mjs', toolPlugin('audit_a', 'a'))
  await s.write('b/audit.mjs', toolPlugin('audit_b', 'b'))
  await s.write('plugins/rate-limit/index.mjs', toolPlugin('rate', 'r'))
  await s.write('plugins/bare.mjs', toolPlugin('bare', 'b'))
  const absolute = await s.write('elsewhere/absolute.mjs', toolPlugin('absolute', 'abs'))
  const viaUrl = await s.write('elsewhere/url.mjs', toolPlugin('url', 'u'))
  const report = await s.load(['./a/audit.mjs', './b/audit.mjs', './plugins/rate-limit/index.mjs', 'plugins/bare.mjs', absolute, pathToFileURL(viaUrl).href])
  assert.deepEqual(report.loaded.map((p) => p.name), ['audit', 'rate-limit', 'bare', 'absolute', 'url'])
  assert.deepEqual(report.failed, [{
    module: './b/audit.mjs',
    name: 'audit',
    error: 'duplicate plugin name "audit": "./a/audit.mjs" already loaded under that name (a plugin is named after its file or package)'
  }])
  assert.equal(s.registry.getEntry('audit_b'), undefined, 'the duplicate never ran')
})

test('register may be a named export, a default object or a default function; ctx carries name, options, config, baseDir and a child logger', async (t) => {
  const s = await pluginSetup(t)
  await s.write('named.mjs', 'export function register (ctx) { ctx.options.capture(ctx) }\n')
  await s.write('object.mjs', 'export default { register (ctx) { ctx.options.capture(ctx) } }\n')
  await s.write('fn.mjs', 'export default async function (ctx) { ctx.logger.info("hello from fn"); ctx.options.capture(ctx) }\n')
  const seen: PluginContext[] = []
  const capture = (ctx: PluginContext) => { seen.push(ctx) }
  const report = await s.load(['named.mjs', 'object.mjs', 'fn.mjs'].map((file) => ({ module: `./${file}`, options: { capture } })))
  assert.deepEqual(report.failed, [])
  assert.deepEqual(seen.map((ctx) => ctx.name), ['named', 'object', 'fn'])
  assert.equal(seen[0].config, s.config)
  assert.equal(seen[0].baseDir, s.dir)
  assert.equal((seen[0].options as { capture: unknown }).capture, capture)
  assert.ok(Object.isFrozen(seen[0]))
  const line = s.log.lines().find((l) => l.msg === 'hello from fn')
  assert.equal(line?.plugin, 'fn')
})

test('a plugin may register tools after register() returned; after a failed load it may not', async (t) => {
  const s = await pluginSetup(t)
  const grab = 'export function register (ctx) { ctx.options.capture(ctx) }\n'
  await s.write('later.mjs', grab)
  await s.write('failing.mjs', 'export function register (ctx) { ctx.options.capture(ctx); throw new Error("no") }\n')
  const seen: PluginContext[] = []
  const capture = (ctx: PluginContext) => { seen.push(ctx) }
  await s.load([{ module: './later.mjs', options: { capture } }, { module: './failing.mjs', options: { capture } }])
  const [later, failing] = seen
  const tool = { name: 'late', schema: { parameters: { type: 'object' } }, handler: async () => 'late' }
  later.registerTool(tool)
  assert.deepEqual(s.registry.getEntry('late')!.origin, { kind: 'plugin', plugin: 'later', allowToolOverride: false })
  assert.throws(() => failing.registerTool({ ...tool, name: 'zombie' }), /plugin "failing" failed to load; registerTool refused/)
  assert.throws(() => failing.registerHook('pre_tool_call', () => undefined), /failed to load; registerHook refused/)
  assert.equal(s.registry.getEntry('zombie'), undefined)
  assert.equal(s.hooks.has('pre_tool_call'), false)
  // A refused late registration reaches the plugin and the log, and the plugin stays loaded.
  assert.throws(() => later.registerTool({ ...tool, name: 'bad name!' }), /must match/)
  assert.ok(s.log.lines().some((l) => l.msg === 'plugin registerTool refused' && l.plugin === 'later'))
  assert.equal(s.registry.getEntry('late')!.name, 'late')
})

test('a register() that never settles fails at the deadline and is rolled back', async (t) => {
  const s = await pluginSetup(t)
  await s.write('stuck.mjs', `export function register (ctx) {
  ctx.registerTool({ name: 'stuck_tool', schema: { parameters: { type: 'object' } }, handler: async () => 'x' })
  ctx.options.started()
  return new Promise(() => {})
}
`)
  await s.write('after.mjs', toolPlugin('after_stuck', 'ok'))
  t.mock.timers.enable({ apis: ['setTimeout'] })
  let started!: () => void
  const registering = new Promise<void>((resolve) => { started = resolve })
  const loading = s.load([{ module: './stuck.mjs', options: { started } }, './after.mjs'], { timeoutMs: 5000 })
  await registering
  assert.ok(s.registry.getEntry('stuck_tool'), 'registered before hanging')
  t.mock.timers.tick(4999)
  await new Promise((resolve) => setImmediate(resolve))
  assert.ok(s.registry.getEntry('stuck_tool'), 'not failed before the deadline')
  t.mock.timers.tick(1)
  const report = await loading
  assert.match(report.failed[0].error, /plugin "stuck": import and register\(ctx\) did not finish within 5000 ms/)
  assert.equal(s.registry.getEntry('stuck_tool'), undefined)
  assert.deepEqual(report.loaded.map((p) => p.name), ['after'])
})

test('no plugins: an empty report', async (t) => {
  const s = await pluginSetup(t)
  assert.deepEqual(await s.load([]), { loaded: [], failed: [] })
})

test('a plugin tool declared with TypeBox gets typed arguments (tsc checks the fixture) and is served as plain JSON Schema', async (t) => {
  const s = await pluginSetup(t)
  const report = await s.load([{ module: fileURLToPath(new URL('fixtures/typed-plugin.ts', import.meta.url)) }])
  assert.deepEqual(report.failed, [])
  const entry = s.registry.getEntry('typed_plugin_tool')!
  assert.equal(entry.toolset, 'typed-plugin')
  assert.equal(Object.hasOwn(entry.schema.parameters, '~kind'), false, 'no TypeBox marker in what is served')
  assert.deepEqual(JSON.parse(JSON.stringify(entry.schema.parameters)), {
    type: 'object',
    required: ['word'],
    properties: { word: { type: 'string', minLength: 1 }, times: { type: 'integer', minimum: 1, maximum: 3 } }
  })
  assert.deepEqual(JSON.parse((await s.call({ name: 'typed_plugin_tool', args: { word: 'ha', times: 2 } })).content), { said: 'haha', times: 2 })
  // The schema is enforced before the handler: a wrong type never reaches it.
  assert.equal((await s.call({ name: 'typed_plugin_tool', args: { word: 'ha', times: 9 } })).status, 'invalid')
})
