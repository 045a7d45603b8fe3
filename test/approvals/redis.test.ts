// Approvals shared by two replicas through a real redis-server (system tier): a call held on one
// is listed and decided on the other, and runs on the first with the listed arguments; two
// operators deciding at once on both replicas get one 200 and one 409; a refused call's approval,
// approved on one replica, lets the same call run once on the other.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startRedis } from '../helpers/redis-server.ts'
import { approvalGateway, as } from './helpers.ts'

test('two replicas sharing Redis: held on A, listed and approved on B, run on A; a double decision gives one 409', async (t) => {
  const redis = await startRedis(t)
  const [a, b] = await Promise.all([approvalGateway(t, 60_000, { REDIS_URL: redis.url }), approvalGateway(t, 60_000, { REDIS_URL: redis.url })])
  const held = await a.app.inject({ method: 'POST', url: '/dispatch/wipe', headers: as('alice'), payload: { path: '/srv/a' } })
  assert.equal(held.statusCode, 202, held.body)
  const { approvalId, callId } = held.json()

  const listed = (await b.app.inject({ method: 'GET', url: '/admin/approvals', headers: as('ops') })).json().approvals
  assert.deepEqual(listed.map((view: { approvalId: string, caller: string, arguments: unknown }) => [view.approvalId, view.caller, view.arguments]), [[approvalId, 'alice', { path: '/srv/a' }]])

  const decide = async (replica: typeof a, decision: string) => await replica.app.inject({ method: 'POST', url: `/admin/approvals/${approvalId as string}`, headers: as('ops'), payload: { decision } })
  const answers = await Promise.all([decide(b, 'approve'), decide(a, 'deny')])
  assert.deepEqual(answers.map((answer) => answer.statusCode).sort(), [200, 409])
  const winner = answers.find((answer) => answer.statusCode === 200)!.json().status as string

  let done
  do {
    done = await a.app.inject({ method: 'GET', url: `/calls/${callId as string}?wait=5`, headers: as('alice') })
  } while (done.statusCode === 202)
  if (winner === 'approved') {
    assert.equal(done.json().status, 'ok', done.body)
    assert.deepEqual(a.ran, [{ path: '/srv/a' }])
  } else {
    assert.equal(done.json().status, 'blocked', done.body)
    assert.equal(a.ran.length, 0)
  }
  assert.equal(b.ran.length, 0)
})

test('a batch call refused on A, approved on B, runs once when sent again to B', async (t) => {
  const redis = await startRedis(t)
  const [a, b] = await Promise.all([approvalGateway(t, 60_000, { REDIS_URL: redis.url }), approvalGateway(t, 60_000, { REDIS_URL: redis.url })])
  const batch = { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'wipe', arguments: '{"path":"/srv/b"}' } }] }
  const first = JSON.stringify((await a.app.inject({ method: 'POST', url: '/dispatch', headers: as('alice'), payload: batch })).json())
  const approvalId = /apr_[0-9a-f-]+/.exec(first)?.[0]
  assert.ok(approvalId, first)
  assert.equal((await b.app.inject({ method: 'POST', url: `/admin/approvals/${approvalId}`, headers: as('ops'), payload: { decision: 'approve' } })).statusCode, 200)
  assert.match(JSON.stringify((await b.app.inject({ method: 'POST', url: '/dispatch', headers: as('alice'), payload: batch })).json()), /wiped/)
  assert.match(JSON.stringify((await a.app.inject({ method: 'POST', url: '/dispatch', headers: as('alice'), payload: batch })).json()), /waits for a person's approval/)
  assert.deepEqual([a.ran, b.ran], [[], [{ path: '/srv/b' }]])
})
