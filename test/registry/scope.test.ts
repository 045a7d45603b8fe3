// Tests the registration scope: a registration lands in the scope's registry while the load runs,
// and anywhere else (no scope, a closed scope, a second copy of the module) it is refused with an
// error naming the tool and the module.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
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

/** Runs `fn` in a timer scheduled now (so it keeps the current scope) and resolves with what it threw. */
function thrownLater (fn: () => void): Promise<unknown> {
  return new Promise((resolve) => setImmediate(() => {
    try {
      fn()
      resolve(undefined)
    } catch (err) {
      resolve(err)
    }
  }))
}

test('after the load settles, a late registration is refused, reported to the scope, and lands nowhere', async () => {
  const target = new ToolRegistry()
  const late: Error[] = []
  let scheduled: Promise<unknown> | undefined
  await withRegistrationTarget(target, async () => {
    // The timer keeps the scope (AsyncLocalStorage follows it), but fires after the load is over.
    scheduled = thrownLater(() => registry.register(fixtureTool('too_late')))
  }, { module: '/srv/tools/slow.ts', onLate: (error) => late.push(error) })
  const thrown = await scheduled as Error
  assert.ok(thrown instanceof Error)
  assert.match(thrown.message, /"too_late" in \/srv\/tools\/slow\.ts ran after that module finished loading/)
  assert.deepEqual(late, [thrown])
  assert.deepEqual(names(target), [])
})

test('a load that fails still closes its scope', async () => {
  const target = new ToolRegistry()
  let scheduled: Promise<unknown> | undefined
  await assert.rejects(withRegistrationTarget(target, async () => {
    scheduled = thrownLater(() => registry.register(fixtureTool('after_failure')))
    throw new Error('load failed')
  }), /load failed/)
  assert.match((await scheduled as Error).message, /"after_failure" in .*scope\.test\.ts ran after that module finished loading/)
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
