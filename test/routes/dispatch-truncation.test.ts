// Issue 11, items 7 and 13: a result cap smaller than the truncation notice still tells the model
// that the result was cut, and the envelope's fields describe the content it carries.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

test('X-Max-Result-Chars below the notice: the content is the notice with the counts, the envelope says so', async (t) => {
  const { app } = await buildTestApp(t)
  app.gateway.registry.register(fixtureTool('big', { handler: async () => 'x'.repeat(1000) }))
  for (const cap of ['0', '5', '20']) {
    const res = await app.inject({
      method: 'POST', url: '/dispatch/big', payload: {}, headers: { 'x-max-result-chars': cap }
    })
    assert.equal(res.statusCode, 200)
    const body = res.json()
    assert.equal(body.truncated, true, `cap ${cap}`)
    assert.equal(body.originalLength, 1000)
    // The notice alone, and where the whole result is kept (read_result is not registered here).
    assert.equal(body.content, `[... truncated 1000 of 1000 characters; the full result is kept: GET /results/${body.resultId}?offset=0 reads them ...]`, `cap ${cap}: the model is told the result was cut`)
    assert.match(body.resultId, /^res_[\w-]{24}$/)
  }
})

test('a tool whose own cap is smaller than the notice answers the notice, not a bare prefix', async (t) => {
  const { app } = await buildTestApp(t)
  app.gateway.registry.register(fixtureTool('tiny', { maxResultSizeChars: 8, handler: async () => 'abcdefghijklmnop' }))
  const body = (await app.inject({ method: 'POST', url: '/dispatch/tiny', payload: {} })).json()
  assert.equal(body.truncated, true)
  assert.equal(body.originalLength, 16)
  assert.equal(body.content, `[... truncated 16 of 16 characters; the full result is kept: GET /results/${body.resultId}?offset=0 reads them ...]`)
})
