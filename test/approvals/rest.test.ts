// A person approves the exact call, over REST: a plain call of a tool in trust.approval answers 202
// pending_approval with Location: /calls/<id>; GET /admin/approvals lists it with its caller, tool
// and exact arguments; approved, it runs with exactly those arguments; denied, its envelope carries
// the reason; unanswered, it expires. Limited keys cannot decide (403); unknown, decided and expired
// approvals answer 404 and 409 saying why.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { approvalGateway, as } from './helpers.ts'

async function held (app: FastifyInstance, tool: string, body: unknown, who: 'alice' | 'bob' = 'alice') {
  const res = await app.inject({ method: 'POST', url: `/dispatch/${tool}`, headers: as(who), payload: body as object })
  return res
}

/** GET /calls/:id?wait= until the call has ended. */
async function ended (app: FastifyInstance, callId: string, who: 'alice' | 'bob' = 'alice') {
  for (;;) {
    const res = await app.inject({ method: 'GET', url: `/calls/${callId}?wait=5`, headers: as(who) })
    if (res.statusCode !== 202) return res
  }
}

test('a plain call of a tool in trust.approval is held: 202 pending_approval, listed with its exact arguments, run with them once approved', async (t) => {
  const { app, ran } = await approvalGateway(t)
  // Coerced and validated first: what is approved is what the handler gets.
  const res = await held(app, 'wipe', { path: '/srv/data', depth: '2' })
  assert.equal(res.statusCode, 202, res.body)
  const body = res.json()
  assert.equal(body.status, 'pending_approval')
  assert.match(body.approvalId, /^apr_/)
  assert.equal(res.headers.location, `/calls/${body.callId}`)
  assert.equal(ran.length, 0)

  const pending = await app.inject({ method: 'GET', url: `/calls/${body.callId}`, headers: as('alice') })
  assert.equal(pending.statusCode, 202)
  assert.equal(pending.json().status, 'pending_approval')
  assert.equal(pending.json().approvalId, body.approvalId)

  const list = await app.inject({ method: 'GET', url: '/admin/approvals', headers: as('ops') })
  assert.equal(list.statusCode, 200, list.body)
  const [approval] = list.json().approvals
  assert.equal(approval.approvalId, body.approvalId)
  assert.equal(approval.caller, 'alice')
  assert.equal(approval.tool, 'wipe')
  assert.deepEqual(approval.arguments, { path: '/srv/data', depth: 2 })
  assert.match(approval.digest, /^[0-9a-f]{64}$/)

  const decided = await app.inject({ method: 'POST', url: `/admin/approvals/${body.approvalId}`, headers: as('ops'), payload: { decision: 'approve', reason: 'planned cleanup' } })
  assert.equal(decided.statusCode, 200, decided.body)
  assert.equal(decided.json().decidedBy, 'ops')
  const done = await ended(app, body.callId)
  assert.equal(done.statusCode, 200, done.body)
  assert.equal(done.json().status, 'ok', done.body)
  assert.equal(done.json().content, '{"wiped":"/srv/data"}')
  assert.deepEqual(ran, [{ path: '/srv/data', depth: 2 }])
  assert.deepEqual((await app.inject({ method: 'GET', url: '/admin/approvals', headers: as('ops') })).json().approvals, [])
  // The request and the decision are in the audit trail, with who decided.
  const audited = app.audit.page({ limit: 100 }).lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.type === 'approval')
  assert.deepEqual(audited.map((line) => [line.decision, line.principal, line.by]), [['requested', 'alice', undefined], ['approved', 'alice', 'ops']])

  // Decided once: a second decision is a 409 saying so; an unknown one a 404.
  const again = await app.inject({ method: 'POST', url: `/admin/approvals/${body.approvalId}`, headers: as('ops'), payload: { decision: 'deny' } })
  assert.equal(again.statusCode, 409)
  assert.match(again.json().message, /approved \(and its call has run\) already, by ops/)
  const unknown = await app.inject({ method: 'POST', url: '/admin/approvals/apr_nope', headers: as('ops'), payload: { decision: 'approve' } })
  assert.equal(unknown.statusCode, 404)
  assert.equal(unknown.json().code, 'GW_ERR_APPROVAL_NOT_FOUND')
})

test('denied: the call ends blocked with the reason, which the model reads; it never runs', async (t) => {
  const { app, ran } = await approvalGateway(t)
  const body = (await held(app, 'drop_table', { text: 'users' }, 'bob')).json()
  assert.equal(body.status, 'pending_approval', JSON.stringify(body))
  const denied = await app.inject({ method: 'POST', url: `/admin/approvals/${body.approvalId}`, headers: as('ops'), payload: { decision: 'deny', reason: 'not on a Friday' } })
  assert.equal(denied.statusCode, 200)
  const done = (await ended(app, body.callId, 'bob')).json()
  assert.equal(done.status, 'blocked')
  assert.match(done.content, /a person denied this call of drop_table: not on a Friday/)
  assert.equal(ran.length, 0)
  // Another caller never sees the call.
  assert.equal((await app.inject({ method: 'GET', url: `/calls/${body.callId}`, headers: as('alice') })).statusCode, 404)
})

test('tools outside trust.approval run at once; invalid arguments are answered before any approval', async (t) => {
  const { app } = await approvalGateway(t)
  const look = await held(app, 'look', {})
  assert.equal(look.statusCode, 200)
  assert.equal(look.json().content, 'looked')
  const invalid = await held(app, 'wipe', { depth: 1 })
  assert.equal(invalid.statusCode, 400, invalid.body)
  assert.equal(invalid.json().status, 'invalid')
  assert.deepEqual((await app.inject({ method: 'GET', url: '/admin/approvals', headers: as('ops') })).json().approvals, [])
})

test('only operators decide: a key limited to toolsets gets 403, listing and deciding alike', async (t) => {
  const { app } = await approvalGateway(t)
  const body = (await held(app, 'wipe', { path: 'x' })).json()
  for (const request of [
    { method: 'GET' as const, url: '/admin/approvals' },
    { method: 'POST' as const, url: `/admin/approvals/${body.approvalId}`, payload: { decision: 'approve' } }
  ]) {
    const res = await app.inject({ ...request, headers: as('limited') })
    assert.equal(res.statusCode, 403, res.body)
    assert.equal(res.json().code, 'GW_ERR_OPERATOR_REQUIRED')
  }
  assert.equal((await app.inject({ method: 'GET', url: '/admin/approvals', headers: {} })).statusCode, 401)
  assert.equal((await app.inject({ method: 'GET', url: `/calls/${body.callId}`, headers: as('alice') })).json().status, 'pending_approval')
})

test('unanswered, an approval expires: the call ends blocked saying so, and deciding it is a 409 naming the expiry', async (t) => {
  const { app, ran } = await approvalGateway(t, 300)
  const body = (await held(app, 'wipe', { path: 'y' })).json()
  const done = (await ended(app, body.callId)).json()
  assert.equal(done.status, 'blocked', JSON.stringify(done))
  assert.match(done.content, /nobody approved it within 300 ms \(trust\.approvalTimeoutMs\)/)
  const late = await app.inject({ method: 'POST', url: `/admin/approvals/${body.approvalId}`, headers: as('ops'), payload: { decision: 'approve' } })
  assert.equal(late.statusCode, 409)
  assert.equal(late.json().code, 'GW_ERR_APPROVAL_CLOSED')
  assert.match(late.json().message, /expired/)
  assert.equal(ran.length, 0)
})

test('a caller that cannot wait (a batch) is refused naming the approval; the same call sent again once approved runs, once', async (t) => {
  const { app, ran } = await approvalGateway(t)
  const batch = { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'wipe', arguments: '{"path":"/tmp/z"}' } }] }
  const first = await app.inject({ method: 'POST', url: '/dispatch', headers: as('alice'), payload: batch })
  assert.equal(first.statusCode, 200, first.body)
  const text = JSON.stringify(first.json())
  const approvalId = /apr_[0-9a-f-]+/.exec(text)?.[0]
  assert.ok(approvalId, text)
  assert.match(text, /waits for a person's approval/)
  // Other arguments are another call: not covered by this approval.
  await app.inject({ method: 'POST', url: `/admin/approvals/${approvalId}`, headers: as('ops'), payload: { decision: 'approve' } })
  const other = await app.inject({ method: 'POST', url: '/dispatch', headers: as('alice'), payload: { tool_calls: [{ id: 'c2', type: 'function', function: { name: 'wipe', arguments: '{"path":"/etc"}' } }] } })
  assert.match(JSON.stringify(other.json()), /waits for a person's approval/)
  const again = await app.inject({ method: 'POST', url: '/dispatch', headers: as('alice'), payload: batch })
  assert.match(JSON.stringify(again.json()), /wiped/)
  assert.deepEqual(ran, [{ path: '/tmp/z' }])
  // Used up: the third time asks again.
  const third = await app.inject({ method: 'POST', url: '/dispatch', headers: as('alice'), payload: batch })
  assert.match(JSON.stringify(third.json()), /waits for a person's approval/)
})

test('a call of a tool in trust.approval made with Prefer: respond-async says pending_approval in its 202 too', async (t) => {
  const { app } = await approvalGateway(t)
  const res = await app.inject({ method: 'POST', url: '/dispatch/wipe', headers: { ...as('alice'), prefer: 'respond-async' }, payload: { path: '/srv/data' } })
  assert.equal(res.statusCode, 202, res.body)
  assert.equal(res.json().status, 'pending_approval')
  assert.match(res.json().approvalId, /^apr_/)
  assert.equal(res.headers.location, `/calls/${res.json().callId}`)
  assert.equal(res.headers['preference-applied'], 'respond-async')
})
