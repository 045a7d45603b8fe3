// A person approves the exact call, over /mcp with the SDK 2.4 client in both revisions: a client
// that can open a URL (elicitation.url) is shown the approval's URL and its call waits for the
// decision (declined there, the approval is withdrawn); a client that cannot gets the tool's error
// naming the approval and its URL, and the same call sent again once approved runs, once.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import type { FastifyInstance } from 'fastify'
import { REVISION } from '../mcp-server/helpers/modern.ts'
import { approvalGateway, as } from './helpers.ts'

async function connect (t: { after: (fn: () => unknown) => void }, url: URL, revision: string, onUrl?: (params: { url: string, message: string, elicitationId?: string }) => Promise<void | 'decline'>) {
  const client = new Client({ name: 'approvals-test', version: '1' }, {
    versionNegotiation: { mode: revision === REVISION ? { pin: revision } : 'legacy' },
    capabilities: onUrl === undefined ? {} : { elicitation: { url: {} } }
  })
  if (onUrl !== undefined) {
    client.setRequestHandler('elicitation/create', async (request) => {
      return { action: await onUrl(request.params as never) ?? 'accept' } as never
    })
  }
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: as('alice') } }))
  t.after(() => client.close())
  return client
}

async function decide (app: FastifyInstance, approvalId: string, decision: 'approve' | 'deny', reason?: string): Promise<void> {
  const res = await app.inject({ method: 'POST', url: `/admin/approvals/${approvalId}`, headers: as('ops'), payload: { decision, reason } })
  assert.equal(res.statusCode, 200, res.body)
}

for (const revision of [REVISION, '2025-11-25']) {
  test(`${revision}: a client that opens URLs is shown the approval; approved, the call runs with the listed arguments`, async (t) => {
    const { app, ran } = await approvalGateway(t)
    const url = new URL(`${await app.listen({ host: '127.0.0.1', port: 0 })}/mcp`)
    const shown: string[] = []
    const client = await connect(t, url, revision, async (params) => {
      shown.push(params.url)
      const listed = (await app.inject({ method: 'GET', url: '/admin/approvals', headers: as('ops') })).json().approvals
      assert.equal(listed.length, 1)
      assert.deepEqual(listed[0].arguments, { path: '/srv' })
      assert.equal(listed[0].caller, 'alice')
      assert.equal(params.url, `http://127.0.0.1:${url.port}/admin/approvals/${listed[0].approvalId as string}`)
      // The person decides after the client showed the URL.
      setTimeout(() => { decide(app, listed[0].approvalId, 'approve').catch(() => {}) }, 50)
    })
    const result = await client.callTool({ name: 'wipe', arguments: { path: '/srv' } })
    assert.equal(result.isError, false, JSON.stringify(result))
    assert.deepEqual(result.content, [{ type: 'text', text: '{"wiped":"/srv"}' }])
    assert.equal(shown.length, 1)
    assert.deepEqual(ran, [{ path: '/srv' }])
  })

  test(`${revision}: denied, the tool's error carries the reason`, async (t) => {
    const { app, ran } = await approvalGateway(t)
    const url = new URL(`${await app.listen({ host: '127.0.0.1', port: 0 })}/mcp`)
    const client = await connect(t, url, revision, async (params) => {
      const approvalId = params.url.split('/').at(-1)!
      setTimeout(() => { decide(app, approvalId, 'deny', 'ask the owner first').catch(() => {}) }, 50)
    })
    const result = await client.callTool({ name: 'drop_table', arguments: {} })
    assert.equal(result.isError, true)
    assert.match((result.content as Array<{ text: string }>)[0]!.text, /a person denied this call of drop_table: ask the owner first/)
    assert.equal(ran.length, 0)
  })

  test(`${revision}: a client that cannot open URLs gets an error naming the approval and its URL; once approved, the same call runs`, async (t) => {
    const { app, ran } = await approvalGateway(t)
    const url = new URL(`${await app.listen({ host: '127.0.0.1', port: 0 })}/mcp`)
    const client = await connect(t, url, revision)
    const first = await client.callTool({ name: 'wipe', arguments: { path: '/srv' } })
    assert.equal(first.isError, true)
    const text = (first.content as Array<{ text: string }>)[0]!.text
    const approvalId = /apr_[0-9a-f-]+/.exec(text)?.[0]
    assert.ok(approvalId, text)
    assert.ok(text.includes(`http://127.0.0.1:${url.port}/admin/approvals/${approvalId}`), text)
    await decide(app, approvalId, 'approve')
    const again = await client.callTool({ name: 'wipe', arguments: { path: '/srv' } })
    assert.equal(again.isError, false, JSON.stringify(again))
    assert.deepEqual(ran, [{ path: '/srv' }])
  })

  test(`${revision}: declined by the user, the approval is withdrawn and the call refused`, async (t) => {
    const { app, ran } = await approvalGateway(t)
    const url = new URL(`${await app.listen({ host: '127.0.0.1', port: 0 })}/mcp`)
    let approvalId = ''
    const client = await connect(t, url, revision, async (params) => {
      approvalId = params.url.split('/').at(-1)!
      return 'decline'
    })
    const result = await client.callTool({ name: 'wipe', arguments: { path: '/srv' } })
    assert.equal(result.isError, true)
    assert.match((result.content as Array<{ text: string }>)[0]!.text, /the caller declined the approval of this call of wipe; it was not run/)
    const late = await app.inject({ method: 'POST', url: `/admin/approvals/${approvalId}`, headers: as('ops'), payload: { decision: 'approve' } })
    assert.equal(late.statusCode, 409)
    assert.deepEqual((await app.inject({ method: 'GET', url: '/admin/approvals', headers: as('ops') })).json().approvals, [])
    assert.equal(ran.length, 0)
  })
}
