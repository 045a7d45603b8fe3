// Who may decide an approval when users sign in with an identity provider (a real one, on
// loopback): a token whose scopes include auth.oauth.adminScope; a user's token, even for every
// toolset, is refused with 403 naming the scope, listing and deciding alike.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { signInGateway } from '../auth/helpers.ts'

test('a user\'s token cannot list or decide approvals (403); a token with auth.oauth.adminScope approves, and the user\'s call runs', async (t) => {
  const gateway = await signInGateway(t, {
    oauth: { adminScope: 'tools:admin' },
    idp: { scopes: ['tools:file', 'tools:web', 'tools:all', 'tools:admin'] },
    config: { trust: { approval: ['read_notes'] } }
  })
  const tokenOf = async (scope: string): Promise<string> => (await gateway.idp.clientCredentials({ scope })).access_token
  const send = async (method: string, path: string, token: string, body?: object): Promise<{ status: number, body: any }> => {
    const reply = await fetch(`${gateway.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    return { status: reply.status, body: await reply.json() }
  }
  const user = await tokenOf('tools:all')
  const held = await send('POST', '/dispatch/read_notes', user, { text: 'q3' })
  assert.equal(held.status, 202, JSON.stringify(held.body))
  assert.equal(held.body.status, 'pending_approval')
  const { approvalId, callId } = held.body

  for (const token of [user, await tokenOf('tools:file')]) {
    const listed = await send('GET', '/admin/approvals', token)
    assert.equal(listed.status, 403)
    assert.equal(listed.body.code, 'GW_ERR_OPERATOR_REQUIRED')
    assert.match(listed.body.message, /a token with the scope tools:admin/)
    assert.equal((await send('POST', `/admin/approvals/${approvalId as string}`, token, { decision: 'approve' })).status, 403)
  }

  const admin = await tokenOf('tools:admin')
  const listed = await send('GET', '/admin/approvals', admin)
  assert.equal(listed.status, 200)
  assert.deepEqual(listed.body.approvals.map((approval: { approvalId: string, arguments: unknown }) => [approval.approvalId, approval.arguments]), [[approvalId, { text: 'q3' }]])
  assert.equal((await send('POST', `/admin/approvals/${approvalId as string}`, admin, { decision: 'approve' })).status, 200)
  const done = await send('GET', `/calls/${callId as string}?wait=5`, user)
  assert.equal(done.status, 200, JSON.stringify(done.body))
  assert.equal(done.body.status, 'ok')
})
