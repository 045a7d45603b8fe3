// Tests of HookRegistry alone: registration checks, order, the block directive, faulty hooks, transforms.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { HOOK_NAMES, HookRegistry, type HookName, type PostToolCallEvent, type PreToolCallEvent } from '../../src/dispatch/call/hooks.ts'
import { captureLogger } from '../helpers/logger.ts'

const EVENT: PreToolCallEvent = { tool: 'echo', args: { text: 'hi' }, callId: 'call_1', sessionId: 's1' }
const POST: PostToolCallEvent = { ...EVENT, result: '"hi"', durationMs: 3, status: 'ok' }

test('the three hook names are known', () => {
  assert.deepEqual([...HOOK_NAMES], ['pre_tool_call', 'post_tool_call', 'transform_tool_result'])
})

test('an unknown hook name is refused with the valid names', () => {
  const hooks = new HookRegistry()
  assert.throws(() => hooks.add('before_call' as HookName, () => undefined), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'GW_ERR_INVALID_TOOL')
    assert.match(err.message, /unknown hook "before_call"/)
    assert.match(err.message, /pre_tool_call, post_tool_call, transform_tool_result/)
    return true
  })
})

test('a hook that is not a function is refused, naming its owner', () => {
  const hooks = new HookRegistry()
  assert.throws(() => hooks.add('pre_tool_call', 'nope' as never, 'plugin-x'), /hook "pre_tool_call" from plugin-x must be a function/)
  assert.equal(hooks.has('pre_tool_call'), false)
})

test('has() tells whether a hook point has hooks', () => {
  const hooks = new HookRegistry()
  assert.equal(hooks.has('post_tool_call'), false)
  hooks.add('post_tool_call', () => undefined)
  assert.equal(hooks.has('post_tool_call'), true)
  assert.equal(hooks.has('pre_tool_call'), false)
})

test('runPre: no hooks, no verdict', async () => {
  const { logger } = captureLogger('trace')
  assert.equal(await new HookRegistry().runPre(EVENT, logger), undefined)
})

test('runPre: hooks run in registration order with the event; the first block wins', async () => {
  const { logger } = captureLogger('trace')
  const hooks = new HookRegistry()
  const seen: string[] = []
  hooks.add('pre_tool_call', (event) => { seen.push(`a:${event.tool}:${String(event.args.text)}`) }, 'a')
  hooks.add('pre_tool_call', async () => { seen.push('b'); return { action: 'block', message: 'no by b' } }, 'b')
  hooks.add('pre_tool_call', () => { seen.push('c'); return { action: 'block', message: 'no by c' } }, 'c')
  assert.deepEqual(await hooks.runPre(EVENT, logger), { message: 'no by b', owner: 'b' })
  assert.deepEqual(seen, ['a:echo:hi', 'b'])
})

test('runPre: malformed directives are ignored', async () => {
  const { logger } = captureLogger('trace')
  const malformed: unknown[] = [
    { action: 'block' },
    { action: 'block', message: '' },
    { action: 'block', message: 42 },
    { action: 'allow' },
    { action: 'allow', message: 'fine' },
    { action: 'BLOCK', message: 'shouting' },
    'block',
    { message: 'no action' },
    null,
    42,
    true,
    ['block', 'message']
  ]
  for (const directive of malformed) {
    const hooks = new HookRegistry()
    hooks.add('pre_tool_call', () => directive)
    assert.equal(await hooks.runPre(EVENT, logger), undefined, JSON.stringify(directive))
  }
})

test('runPre: a malformed directive does not stop a later valid one', async () => {
  const { logger } = captureLogger('trace')
  const hooks = new HookRegistry()
  hooks.add('pre_tool_call', () => ({ action: 'block' }), 'first')
  hooks.add('pre_tool_call', () => ({ action: 'block', message: 'really' }), 'second')
  assert.deepEqual(await hooks.runPre(EVENT, logger), { message: 'really', owner: 'second' })
})

test('runPre: a throwing or rejecting hook is logged and ignored; the next hooks still run', async () => {
  const { logger, lines } = captureLogger('trace')
  const hooks = new HookRegistry()
  hooks.add('pre_tool_call', () => { throw new Error('sync boom') }, 'sync-plugin')
  hooks.add('pre_tool_call', async () => { throw new Error('async boom') }, 'async-plugin')
  hooks.add('pre_tool_call', () => ({ action: 'block', message: 'third says no' }), 'third')
  assert.deepEqual(await hooks.runPre(EVENT, logger), { message: 'third says no', owner: 'third' })
  const faults = lines().filter((line) => line.msg === 'hook threw; ignored')
  assert.deepEqual(faults.map((line) => line.owner), ['sync-plugin', 'async-plugin'])
  assert.deepEqual(faults.map((line) => line.hook), ['pre_tool_call', 'pre_tool_call'])
  assert.deepEqual(faults.map((line) => (line.err as { message: string }).message), ['sync boom', 'async boom'])
  assert.ok(faults.every((line) => line.level === 50))
})

test('runPost: every hook runs in order with the event, even after one throws', async () => {
  const { logger, lines } = captureLogger('trace')
  const hooks = new HookRegistry()
  const seen: PostToolCallEvent[] = []
  hooks.add('post_tool_call', (event) => { seen.push(event) })
  hooks.add('post_tool_call', () => { throw new Error('observer broke') }, 'broken')
  hooks.add('post_tool_call', async (event) => { seen.push(event) })
  assert.equal(await hooks.runPost(POST, logger), undefined)
  assert.deepEqual(seen, [POST, POST])
  assert.equal(lines().filter((line) => line.msg === 'hook threw; ignored' && line.owner === 'broken').length, 1)
})

test('runPost: an async hook is awaited before runPost resolves', async () => {
  const { logger } = captureLogger('trace')
  const hooks = new HookRegistry()
  let done = false
  hooks.add('post_tool_call', async () => { await new Promise<void>((resolve) => setImmediate(resolve)); done = true })
  await hooks.runPost(POST, logger)
  assert.equal(done, true)
})

test('runTransform: the first string wins; non-strings are ignored', async () => {
  const { logger } = captureLogger('trace')
  const hooks = new HookRegistry()
  const seen: string[] = []
  hooks.add('transform_tool_result', () => { seen.push('object'); return { result: 'not a string' } })
  hooks.add('transform_tool_result', () => { seen.push('number'); return 42 })
  hooks.add('transform_tool_result', () => { seen.push('undefined') })
  hooks.add('transform_tool_result', async (event) => { seen.push('first string'); return `<${event.result}>` })
  hooks.add('transform_tool_result', () => { seen.push('second string'); return 'never used' })
  const replaced = await hooks.runTransform({ ...EVENT, result: 'raw', durationMs: 3, status: 'ok' }, logger)
  assert.equal(replaced, '<raw>')
  assert.deepEqual(seen, ['object', 'number', 'undefined', 'first string'])
})

test('runTransform: an empty string is a valid replacement', async () => {
  const { logger } = captureLogger('trace')
  const hooks = new HookRegistry()
  hooks.add('transform_tool_result', () => '')
  assert.equal(await hooks.runTransform({ ...EVENT, result: 'raw', durationMs: 3, status: 'ok' }, logger), '')
})

test('runTransform: no string at all, or a throwing hook, leaves the result', async () => {
  const { logger, lines } = captureLogger('trace')
  const hooks = new HookRegistry()
  hooks.add('transform_tool_result', () => { throw new Error('bad transform') }, 'bad')
  hooks.add('transform_tool_result', () => null)
  assert.equal(await hooks.runTransform({ ...EVENT, result: 'raw', durationMs: 3, status: 'error' }, logger), undefined)
  assert.equal(lines().filter((line) => line.hook === 'transform_tool_result' && line.owner === 'bad').length, 1)
})

test('hooks default to the owner "anonymous" in the log', async () => {
  const { logger, lines } = captureLogger('trace')
  const hooks = new HookRegistry()
  hooks.add('pre_tool_call', () => { throw new Error('x') })
  await hooks.runPre(EVENT, logger)
  assert.equal(lines()[0].owner, 'anonymous')
})

test('removeOwner drops every hook of that owner at each hook point and keeps the others in order', async () => {
  const { logger } = captureLogger('trace')
  const hooks = new HookRegistry()
  const seen: string[] = []
  hooks.add('pre_tool_call', () => { seen.push('keep-1') }, 'keeper')
  hooks.add('pre_tool_call', () => ({ action: 'block', message: 'gone' }), 'failed-plugin')
  hooks.add('pre_tool_call', () => { seen.push('keep-2') }, 'keeper')
  hooks.add('post_tool_call', () => { seen.push('post') }, 'failed-plugin')
  hooks.add('transform_tool_result', () => 'replaced', 'failed-plugin')
  assert.equal(hooks.removeOwner('failed-plugin'), 3)
  assert.equal(await hooks.runPre(EVENT, logger), undefined)
  assert.deepEqual(seen, ['keep-1', 'keep-2'])
  assert.equal(hooks.has('post_tool_call'), false)
  assert.equal(hooks.has('transform_tool_result'), false)
  assert.equal(hooks.removeOwner('failed-plugin'), 0)
  assert.equal(hooks.removeOwner('nobody'), 0)
  assert.equal(hooks.has('pre_tool_call'), true)
})

test('removeOwner during a run does not disturb the hooks being iterated', async () => {
  const { logger } = captureLogger('trace')
  const hooks = new HookRegistry()
  const seen: string[] = []
  hooks.add('post_tool_call', () => { seen.push('a'); hooks.removeOwner('b') }, 'a')
  hooks.add('post_tool_call', () => { seen.push('b') }, 'b')
  hooks.add('post_tool_call', () => { seen.push('c') }, 'c')
  await hooks.runPost(POST, logger)
  await hooks.runPost(POST, logger)
  assert.deepEqual(seen, ['a', 'b', 'c', 'a', 'c'])
})
