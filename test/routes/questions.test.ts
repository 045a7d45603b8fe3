// A REST call whose tool asks its caller (ctx.ask), answered in its own request: the envelope says
// input_required with the questions and a requestState; the caller sends the call again with
// X-Request-State and its answers and gets the next turn (another question, then the result).
// The call outlives its first connection; answers that do not fit, another tool, another key, an
// unknown state and a body without answers are refused as such; a batch cannot be asked and says so.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'
import type { InputRequests } from '../../src/registry/types.ts'

type T = Parameters<typeof buildTestApp>[0]
const ALICE = 'alice-key-0123456789abcdef'
const BOB = 'bob-key-0123456789abcdef00'
const sha256 = (key: string): string => createHash('sha256').update(key).digest('hex')
const form = (message: string): InputRequests[string] => ({ method: 'elicitation/create', params: { message, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } })

async function gateway (t: T) {
  const dir = await mkdtemp(join(tmpdir(), 'rest-questions-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'gateway.yaml')
  await writeFile(file, ['auth:', '  keys:', `    - { name: alice, sha256: ${sha256(ALICE)} }`, `    - { name: bob, sha256: ${sha256(BOB)} }`, ''].join('\n'))
  const { app } = await buildTestApp(t, { GATEWAY_CONFIG: file, AUTH_FAILURE_MAX: '1000' })
  const signals: AbortSignal[] = []
  app.gateway.registry.register(fixtureTool('deploy', {
    handler: async (args, ctx) => {
      signals.push(ctx.signal)
      const first = await ctx.ask!({ confirm: form(`Deploy ${String(args.text)} to prod?`) })
      const second = await ctx.ask!({ really: form('Really?') })
      return JSON.stringify({ first: first.confirm, second: second.really })
    }
  }))
  return { app, signals }
}

const as = (key: string, more: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, ...more })

test('question, question, result: each turn a 200 envelope, the call going on across requests', async (t) => {
  const { app, signals } = await gateway(t)
  const first = await app.inject({ method: 'POST', url: '/dispatch/deploy', headers: as(ALICE), payload: { text: 'v2' } })
  assert.equal(first.statusCode, 200, first.body)
  const asked = first.json()
  assert.equal(asked.status, 'input_required')
  assert.equal(asked.ok, false)
  assert.equal(asked.error, undefined)
  assert.deepEqual(asked.inputRequests, { confirm: form('Deploy v2 to prod?') })
  assert.match(JSON.parse(asked.content).input_required, /Deploy v2 to prod\?/)
  // The request that made the call has ended; the call has not.
  assert.equal(signals[0]!.aborted, false)

  const second = await app.inject({ method: 'POST', url: '/dispatch/deploy', headers: as(ALICE, { 'x-request-state': asked.requestState }), payload: { inputResponses: { confirm: { action: 'accept', content: { ok: true } } } } })
  assert.equal(second.statusCode, 200, second.body)
  assert.equal(second.json().status, 'input_required')
  assert.deepEqual(Object.keys(second.json().inputRequests), ['really'])

  const third = await app.inject({ method: 'POST', url: '/dispatch/deploy', headers: as(ALICE, { 'x-request-state': second.json().requestState }), payload: { inputResponses: { really: { action: 'accept', content: { ok: false } } } } })
  assert.equal(third.statusCode, 200, third.body)
  assert.equal(third.json().status, 'ok')
  assert.deepEqual(JSON.parse(third.json().content), { first: { action: 'accept', content: { ok: true } }, second: { action: 'accept', content: { ok: false } } })
  // The same call over GET /calls/:id: one record.
  const record = await app.inject({ method: 'GET', url: `/calls/${asked.requestState as string}`, headers: as(ALICE) })
  assert.equal(record.statusCode, 200)
  assert.equal(record.json().status, 'ok')
})

test('bad retries are refused as such, and the call still waits for its answers', async (t) => {
  const { app } = await gateway(t)
  const asked = (await app.inject({ method: 'POST', url: '/dispatch/deploy', headers: as(ALICE), payload: { text: 'v3' } })).json()
  const retry = async (key: string, tool: string, payload: unknown, state = asked.requestState as string) =>
    await app.inject({ method: 'POST', url: `/dispatch/${tool}`, headers: as(key, { 'x-request-state': state }), payload: payload as object })

  const misfit = await retry(ALICE, 'deploy', { inputResponses: { confirm: { action: 'accept', content: { ok: 'yes' } } } })
  assert.equal(misfit.statusCode, 400)
  assert.match(misfit.json().error.message, /inputResponses\.confirm\.content\/ok/)
  const unasked = await retry(ALICE, 'deploy', { inputResponses: { confirm: { action: 'decline' }, drop_tables: { action: 'accept' } } })
  assert.equal(unasked.statusCode, 400)
  assert.match(unasked.json().error.message, /no question "drop_tables" was asked/)
  const badAction = await retry(ALICE, 'deploy', { inputResponses: { confirm: { action: 'maybe' } } })
  assert.match(badAction.json().error.message, /inputResponses\.confirm\.action must be "accept", "decline" or "cancel"/)
  const noAnswers = await retry(ALICE, 'deploy', { text: 'v3' })
  assert.equal(noAnswers.statusCode, 400)
  assert.match(noAnswers.json().error.message, /the body is the answers/)
  const otherTool = await retry(ALICE, 'echo', { inputResponses: { confirm: { action: 'decline' } } })
  assert.equal(otherTool.statusCode, 400)
  assert.match(otherTool.json().error.message, /names a call of tool "deploy"/)
  for (const [key, state] of [[BOB, asked.requestState], [ALICE, 'call_00000000-0000-0000-0000-000000000000'], [ALICE, '../etc/passwd']] as const) {
    const refused = await retry(key, 'deploy', { inputResponses: { confirm: { action: 'decline' } } }, state)
    assert.equal(refused.statusCode, 404, `${key} ${state}`)
    assert.equal(refused.json().error.code, 'GW_ERR_CALL_NOT_FOUND')
  }
  const record = await app.inject({ method: 'GET', url: `/calls/${asked.requestState as string}`, headers: as(ALICE) })
  assert.equal(record.json().status, 'input_required')
  const fine = await retry(ALICE, 'deploy', { inputResponses: { confirm: { action: 'decline' } } })
  assert.equal(fine.json().status, 'input_required')
})

test('a call in a batch cannot be asked: its result is the error naming the question', async (t) => {
  const { app } = await gateway(t)
  const answer = await app.inject({
    method: 'POST',
    url: '/dispatch',
    headers: as(ALICE),
    payload: { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'deploy', arguments: '{"text":"v4"}' } }] }
  })
  assert.equal(answer.statusCode, 200, answer.body)
  const content = answer.json().messages[0].content as string
  assert.match(content, /Deploy v4 to prod\?/)
  assert.match(content, /cannot be asked \(a call in a batch/)
})
