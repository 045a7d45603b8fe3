// Issue 25 item 6: validation bounded in time and memory whatever the body. Half a million members
// under the 1 MiB body limit, against a tool whose schema caps the array at 5, answer a short 400
// naming the cap; the members are neither coerced nor each reported. Durations are measured in
// bench/probes/huge-arrays.md, not asserted here; what is asserted is what the answer says and that
// the heap does not grow by the hundreds of MB that one error object per member cost.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.ts'

const MEMBERS = 500_000

test('web_extract with 500 000 urls inside the body limit: a short 400 naming maxItems, the heap flat', async (t) => {
  const { app } = await buildTestApp(t, {}, { builtins: true })
  const payload = JSON.stringify({ urls: Array.from({ length: MEMBERS }, () => 1) })
  assert.ok(payload.length < 1_048_576, 'inside the default body limit')
  const send = async () => await app.inject({ method: 'POST', url: '/dispatch/web_extract', payload, headers: { 'content-type': 'application/json' } })
  await send() // compiles the validators
  globalThis.gc?.()
  const before = process.memoryUsage().heapUsed
  let peak = before
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().heapUsed) }, 1)
  const res = await send()
  clearInterval(sampler)
  peak = Math.max(peak, process.memoryUsage().heapUsed)
  assert.equal(res.statusCode, 400)
  assert.ok(res.body.length < 1_000, `a short answer: ${res.body.length} bytes`)
  const body = res.json()
  assert.equal(body.error.code, 'GW_ERR_INVALID_ARGUMENTS')
  assert.match(body.error.message, /^invalid arguments: \/urls: must NOT have more than 5 items \(the first failure found/)
  // The parsed body alone is some 20 MB of heap; an error object per member was 250 MB and more.
  assert.ok(peak - before < 120_000_000, `heap grew ${Math.round((peak - before) / 1e6)} MB`)
})

test('a batch of such calls is answered the same way, each call on its own', async (t) => {
  const { app } = await buildTestApp(t, {}, { builtins: true })
  const args = JSON.stringify({ urls: Array.from({ length: 100_000 }, () => 1) })
  const res = await app.inject({
    method: 'POST',
    url: '/dispatch',
    payload: {
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'web_extract', arguments: args } },
        { id: 'c2', type: 'function', function: { name: 'web_extract', arguments: args } }
      ]
    },
    headers: { 'content-type': 'application/json' }
  })
  assert.equal(res.statusCode, 200, res.body.slice(0, 300))
  assert.ok(res.body.length < 3_000, `a short answer: ${res.body.length} bytes`)
  const body = res.json()
  assert.deepEqual(body.results.map((r: { status: string }) => r.status), ['invalid', 'invalid'])
  for (const message of body.messages) assert.match(message.content, /must NOT have more than 5 items/)
})
