// The subscriptions/listen stream kept open, against a scripted client on a hand-moved clock: a
// stream that ends is opened again with back-off (and the link asked to check the server), a
// stream back after a break triggers a refresh, a declined filter is not retried, close() ends it all.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { McpSubscription, SubscriptionFilter } from '@modelcontextprotocol/client'
import { ListenKeeper } from '../../src/mcp-client/listen-keeper.ts'
import { ManualClock } from './helpers/clock.ts'
import { captureLogger } from '../helpers/logger.ts'

type Ending = 'local' | 'graceful' | 'remote'

class FakeSubscription implements McpSubscription {
  readonly honoredFilter: SubscriptionFilter
  readonly closed: Promise<Ending>
  closedLocally = false
  end: (how: Ending) => void = () => {}

  constructor (honored: SubscriptionFilter) {
    this.honoredFilter = honored
    this.closed = new Promise((resolve) => { this.end = resolve })
  }

  async close (): Promise<void> {
    this.closedLocally = true
    this.end('local')
  }
}

/** A client whose listen() answers from a script: a filter to honour, or an error to throw. */
function scriptedClient (script: Array<SubscriptionFilter | Error>): { listen: () => Promise<McpSubscription>, opened: FakeSubscription[], calls: () => number } {
  const opened: FakeSubscription[] = []
  let calls = 0
  return {
    opened,
    calls: () => calls,
    listen: async () => {
      const next = script[Math.min(calls++, script.length - 1)]
      if (next instanceof Error) throw next
      const subscription = new FakeSubscription(next)
      opened.push(subscription)
      return subscription
    }
  }
}

function keeper (client: ReturnType<typeof scriptedClient>, clock: ManualClock): { keeper: ListenKeeper, broken: string[], reopened: () => number } {
  const broken: string[] = []
  let reopened = 0
  const k = new ListenKeeper({
    client,
    clock,
    logger: captureLogger('silent').logger,
    ackTimeoutMs: 1_000,
    retryBaseMs: 100,
    onBroken: (why) => { broken.push(why) },
    onReopened: () => { reopened++ }
  })
  return { keeper: k, broken, reopened: () => reopened }
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

test('a stream that breaks is opened again after the back-off; the link is asked to check the server, then to refresh', async () => {
  const clock = new ManualClock()
  const client = scriptedClient([{ toolsListChanged: true }])
  const { keeper: k, broken, reopened } = keeper(client, clock)
  await k.start()
  assert.equal(k.open, true)
  assert.equal(reopened(), 0, 'the first opening is no reopening')
  client.opened[0].end('remote')
  await flush()
  assert.equal(k.open, false)
  assert.deepEqual(broken, ['the subscriptions/listen stream broke'])
  assert.equal(clock.delays.at(-1), 100, 'the first wait is the base (± 20 %, here 0)')
  clock.advance(100)
  await flush()
  assert.equal(client.calls(), 2)
  assert.equal(k.open, true)
  assert.equal(reopened(), 1)
  await k.close()
})

test('listens that keep failing are retried with doubling waits; a graceful end is reopened too', async () => {
  const clock = new ManualClock()
  const failure = new Error('Subscription limit reached')
  const client = scriptedClient([failure, failure, failure, { toolsListChanged: true }])
  const { keeper: k, broken } = keeper(client, clock)
  await k.start()
  for (let i = 0; i < 3; i++) {
    clock.advance(clock.delays.at(-1)!)
    await flush()
  }
  assert.deepEqual(clock.delays, [100, 200, 400])
  assert.equal(broken.length, 3)
  assert.match(broken[0], /subscriptions\/listen failed: Subscription limit reached/)
  assert.equal(k.open, true)
  client.opened[0].end('graceful')
  await flush()
  assert.equal(broken.at(-1), 'the server ended the subscriptions/listen stream')
  assert.equal(clock.pending, 1)
  await k.close()
  assert.equal(clock.pending, 0, 'close() leaves nothing planned')
})

test('a server that does not honour toolsListChanged gets its stream closed and no retry', async () => {
  const clock = new ManualClock()
  const client = scriptedClient([{}])
  const { keeper: k, broken } = keeper(client, clock)
  await k.start()
  assert.equal(k.open, false)
  assert.equal(client.opened[0].closedLocally, true)
  assert.equal(clock.pending, 0)
  assert.deepEqual(broken, [])
})

test('close() closes the open stream (the server is told) and a local end is not a break', async () => {
  const clock = new ManualClock()
  const client = scriptedClient([{ toolsListChanged: true }])
  const { keeper: k, broken } = keeper(client, clock)
  await k.start()
  await k.close()
  await flush()
  assert.equal(client.opened[0].closedLocally, true)
  assert.deepEqual(broken, [])
  assert.equal(clock.pending, 0)
})
