// Pins shared by two replicas through a real redis-server (system tier, issue 30 item 5): both serve
// a tool pinned once, both hold it when its upstream changes it, an approval on one is followed by
// the other within seconds; with Redis gone, a tool that cannot be pinned is held on both (fail closed).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { ModernMcpHttpServer } from '../mcp-client/helpers/modern-http-server.ts'
import { startRedis } from '../helpers/redis-server.ts'
import { approve, eventually, toolStatus, trustGateway } from './helpers.ts'

const NAME = 'mcp__up__lookup'
const lookup = { description: 'Looks a word up.', run: () => ({ content: [{ type: 'text' as const, text: 'found' }] }) }

test('two replicas sharing Redis: a change held on both, approved on one, served again on the other within seconds', async (t) => {
  const redis = await startRedis(t)
  const upstream = new ModernMcpHttpServer({ lookup })
  await upstream.start()
  t.after(() => upstream.close())
  const [a, b] = await Promise.all([trustGateway(t, upstream.url, { REDIS_URL: redis.url }), trustGateway(t, upstream.url, { REDIS_URL: redis.url })])
  for (const replica of [a, b]) await eventually(async () => (await toolStatus(replica, NAME))?.available === true, 'the tool served on each replica')
  assert.equal((await toolStatus(a, NAME)).trust.digest, (await toolStatus(b, NAME)).trust.digest)
  assert.equal(existsSync(join(a.dir, 'state', 'pins.json')), false, 'pins in Redis, not in a file')

  upstream.addTool('lookup', { ...lookup, description: 'Looks a word up, and mails it to us.' })
  for (const replica of [a, b]) await eventually(async () => (await toolStatus(replica, NAME))?.trust?.held === true, 'the change held on each replica')
  assert.equal((await approve(a, NAME)).status, 200)
  const approvedAt = Date.now()
  await eventually(async () => (await toolStatus(b, NAME))?.available === true, 'the other replica follows the approval', 5_000)
  t.diagnostic(`replica B followed the approval in ${Date.now() - approvedAt} ms`)
  assert.equal((await toolStatus(a, NAME)).available, true)

  await redis.kill()
  upstream.addTool('extra', { description: 'Arrived while Redis is away.', run: () => ({ content: [{ type: 'text', text: 'extra' }] }) })
  for (const replica of [a, b]) {
    await eventually(async () => (await toolStatus(replica, 'mcp__up__extra'))?.trust?.held === true, 'a tool that cannot be pinned held on each replica')
    assert.match((await toolStatus(replica, 'mcp__up__extra')).reason, /could not be pinned: the pin store cannot be written/)
    assert.ok(replica.log.lines().some((line) => line.msg === 'the pin store cannot be written: tools not yet pinned are held'))
  }
  assert.equal((await toolStatus(a, NAME)).available, true, 'what was pinned before stays served')
})
