// Tests the registration scope: a registration lands in the scope's registry while the load runs,
// and anywhere else (no scope, a closed scope, a second copy of the module) it is refused with an
// error naming the tool and the module.
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { ToolRegistry } from '../../src/registry/registry.ts'
import { registry, withRegistrationTarget } from '../../src/registry/scope.ts'
import { fixtureTool } from '../helpers/tools.ts'

const thisFile = fileURLToPath(import.meta.url)

function names (target: ToolRegistry): string[] {
  return [...target.snapshot().tools.keys()].sort()
}

test('inside a scope, registrations land in its registry and are announced, top-level awaits included', async () => {
  const target = new ToolRegistry()
  const heard: string[] = []
  await withRegistrationTarget(target, async () => {
    registry.register(fixtureTool('first'))
    await new Promise((resolve) => setImmediate(resolve))
    registry.register(fixtureTool('second'))
  }, { onRegister: (entry) => heard.push(entry.name) })
  assert.deepEqual(names(target), ['first', 'second'])
  assert.deepEqual(heard, ['first', 'second'])
})

test('outside any scope, register throws naming the tool and the calling module', () => {
  assert.throws(() => registry.register(fixtureTool('stray')), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'GW_ERR_INVALID_TOOL')
    assert.ok(err.message.includes('"stray"'), err.message)
    assert.ok(err.message.includes(thisFile), err.message)
    assert.match(err.message, /outside tool discovery/)
    assert.match(err.message, /withRegistrationTarget/)
    return true
  })
})

const scopeUrl = new URL('../../src/registry/scope.ts', import.meta.url).href

/**
 * A tool module in a temporary folder that registers `tool` in a timer, after its load is over, and
 * keeps what that threw in globalThis.lateThrown; then throws itself when `fails`.
 */
async function lateModule (t: TestContext, tool: string, fails = false): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-scope-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, `${tool}.mjs`)
  await writeFile(file, `import { registry } from ${JSON.stringify(scopeUrl)}
globalThis.lateThrown = new Promise((resolve) => setImmediate(() => {
  try { registry.register({ name: ${JSON.stringify(tool)}, toolset: 'testing', schema: { parameters: { type: 'object' } }, handler: () => '{}' }); resolve(undefined) } catch (err) { resolve(err) }
}))
${fails ? "throw new Error('load failed')" : ''}
`)
  return file
}

const store = globalThis as { lateThrown?: Promise<unknown> }

test('after the load settles, a late registration is refused, reported to the scope of its module, and lands nowhere', async (t) => {
  const file = await lateModule(t, 'too_late')
  const target = new ToolRegistry()
  const late: Error[] = []
  await withRegistrationTarget(target, async () => await import(pathToFileURL(file).href), { module: file, onLate: (error) => late.push(error) })
  const thrown = await store.lateThrown as Error
  assert.ok(thrown instanceof Error)
  assert.ok(thrown.message.includes(`"too_late" in ${file} ran after that module finished loading`), thrown.message)
  assert.deepEqual(late, [thrown])
  assert.deepEqual(names(target), [])
})

test('a load that fails still closes its scope', async (t) => {
  const file = await lateModule(t, 'after_failure', true)
  const target = new ToolRegistry()
  await assert.rejects(withRegistrationTarget(target, async () => await import(pathToFileURL(file).href), { module: file }), /load failed/)
  assert.ok(((await store.lateThrown) as Error).message.includes(`"after_failure" in ${file} ran after that module finished loading`))
  assert.deepEqual(names(target), [])
})

test('concurrent scopes keep each registration in its own registry', async () => {
  const targets = [new ToolRegistry(), new ToolRegistry(), new ToolRegistry()]
  await Promise.all(targets.map((target, i) => withRegistrationTarget(target, async () => {
    await new Promise((resolve) => setTimeout(resolve, 3 - i))
    registry.register(fixtureTool(`tool_${i}`))
  })))
  assert.deepEqual(targets.map(names), [['tool_0'], ['tool_1'], ['tool_2']])
})

test('a second copy of the module (another URL) refuses even inside the first copy\'s scope, and says it is a copy', async () => {
  const copy = await import(new URL('../../src/registry/scope.ts?second-copy', import.meta.url).href) as typeof import('../../src/registry/scope.ts')
  assert.notEqual(copy.registry, registry)
  const target = new ToolRegistry()
  await withRegistrationTarget(target, async () => {
    assert.throws(() => copy.registry.register(fixtureTool('copied')), (err: Error) => {
      assert.match(err.message, /"copied" .* went to a second copy of the registry module/)
      assert.ok(err.message.includes('scope.ts?second-copy'), err.message)
      assert.match(err.message, /import the registry as 'tool-gateway\/registry'/)
      return true
    })
  })
  assert.deepEqual(names(target), [])
})
