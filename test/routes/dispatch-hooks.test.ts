// Issue 11, item 6 and containment: what hooks see of each call, over HTTP. Post hooks (an audit
// log) see every call, unknown and unavailable tools included; a blocked call's event says who
// blocked it and why; transform hooks get the duration; a handler exception names its class.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { PostToolCallEvent, TransformToolResultEvent } from '../../src/dispatch/call/hooks.ts'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

async function setup (t: Parameters<typeof buildTestApp>[0]) {
  const built = await buildTestApp(t)
  const { registry, hooks } = built.app.gateway
  registry.register(fixtureTool('echo'))
  registry.register(fixtureTool('typo', { handler: async () => { throw new TypeError('x.map is not a function') } }))
  registry.register(fixtureTool('offline', { checkFn: () => ({ available: false, reason: 'no key' }) }))
  registry.register(fixtureTool('guarded'))
  hooks.add('pre_tool_call', (event) => event.tool === 'guarded' ? { action: 'block', message: 'guarded is off limits' } : undefined, 'policy')
  const posts: PostToolCallEvent[] = []
  const transforms: TransformToolResultEvent[] = []
  const pres: string[] = []
  hooks.add('pre_tool_call', (event) => { pres.push(event.tool) }, 'audit')
  hooks.add('post_tool_call', (event) => { posts.push(event) }, 'audit')
  hooks.add('transform_tool_result', (event) => { transforms.push(event) }, 'audit')
  const post = (name: string, payload: unknown = {}) =>
    built.app.inject({ method: 'POST', url: `/dispatch/${name}`, payload: payload as string, headers: { 'content-type': 'application/json', 'x-tool-call-id': `c_${name}` } })
  return { ...built, posts, transforms, pres, post }
}

test('post hooks see calls to unknown and unavailable tools, with their status; pre hooks do not run for them', async (t) => {
  const { post, posts, pres } = await setup(t)
  assert.equal((await post('no_such_tool', { text: 'hi' })).statusCode, 404)
  assert.equal((await post('offline')).statusCode, 503)
  assert.deepEqual(posts.map((e) => [e.tool, e.status, e.callId]), [['no_such_tool', 'not_found', 'c_no_such_tool'], ['offline', 'unavailable', 'c_offline']])
  assert.deepEqual(posts[0].args, { text: 'hi' }, 'the audit log sees what was attempted')
  assert.equal(posts[0].result, '{"error":"Unknown tool: no_such_tool"}')
  assert.match(posts[1].result, /unavailable: no key/)
  for (const event of posts) assert.ok(Number.isInteger(event.durationMs) && event.durationMs >= 0)
  assert.deepEqual(pres, [], 'nothing to veto: the call is refused anyway')
})

test('a blocked call\'s post event says it was blocked, by which hook owner and why, with a duration of 0', async (t) => {
  const { post, posts } = await setup(t)
  assert.equal((await post('guarded')).statusCode, 403)
  assert.equal(posts.length, 1)
  assert.equal(posts[0].status, 'blocked')
  assert.deepEqual(posts[0].blocked, { by: 'policy', reason: 'guarded is off limits' })
  assert.equal(posts[0].durationMs, 0)
})

test('transform hooks get the call\'s duration, as post hooks do', async (t) => {
  const { post, posts, transforms } = await setup(t)
  assert.equal((await post('echo', { text: 'a' })).statusCode, 200)
  assert.equal(transforms.length, 1)
  assert.ok(Number.isInteger(transforms[0].durationMs) && transforms[0].durationMs >= 0, `durationMs ${transforms[0].durationMs}`)
  assert.ok(transforms[0].durationMs >= posts[0].durationMs)
})

test('a handler exception\'s error names the exception class', async (t) => {
  const { post, posts } = await setup(t)
  const body = (await post('typo')).json()
  assert.equal(body.status, 'error')
  assert.equal(JSON.parse(body.content).error, 'TypeError: x.map is not a function')
  assert.equal(body.error.message, 'TypeError: x.map is not a function')
  assert.equal(posts[0].result, body.content)
})
