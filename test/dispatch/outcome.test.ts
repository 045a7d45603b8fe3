// The dispatch contract: each status's error code and HTTP status, the envelope status of errors
// raised around a call, and the one envelope builder.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  BadRequestError, BodyTooLargeError, InternalError, NotFoundError, OverloadedError, RateLimitedError, UnauthorizedError,
  UnknownToolsetError, UnsupportedMediaTypeError
} from '../../src/shared/errors.ts'
import { buildOutcome, inputRequiredOutcome, CALL_STATUSES, dispatched, DISPATCH_STATUSES, Envelope, failed, statusOfError, type DispatchStatus } from '../../src/dispatch/call/outcome.ts'

test('every status maps to its code and HTTP status', () => {
  const expected: Record<DispatchStatus, [string | undefined, number]> = {
    ok: [undefined, 200],
    error: ['GW_ERR_TOOL_FAILED', 200],
    invalid: ['GW_ERR_INVALID_ARGUMENTS', 400],
    blocked: ['GW_ERR_BLOCKED', 403],
    not_found: ['GW_ERR_TOOL_NOT_FOUND', 404],
    unavailable: ['GW_ERR_TOOL_UNAVAILABLE', 503],
    timeout: ['GW_ERR_TIMEOUT', 504],
    cancelled: ['GW_ERR_CANCELLED', 499]
  }
  assert.deepEqual(Object.keys(expected).sort(), [...DISPATCH_STATUSES].sort())
  for (const [status, [code, httpStatus]] of Object.entries(expected)) {
    const answer = dispatched('t', 'c', { status: status as DispatchStatus, content: '{"error":"why"}' }, 3)
    const { outcome } = answer
    assert.equal(outcome.error?.code, code, status)
    assert.equal(answer.httpStatus, httpStatus, status)
    assert.equal(outcome.ok, status === 'ok')
    if (code) assert.equal(outcome.error!.message, 'why')
  }
})

test('the statuses hooks observe are the dispatch statuses minus the two that never reach a tool', () => {
  assert.deepEqual(DISPATCH_STATUSES.filter((s) => !(CALL_STATUSES as readonly string[]).includes(s)), ['unavailable', 'not_found'])
  // The envelope adds the two statuses that are no end: a call waiting for its caller's answers, or for a person's approval.
  assert.deepEqual(Envelope.properties.status.enum, [...DISPATCH_STATUSES, 'input_required', 'pending_approval'])
})

test('inputRequiredOutcome: the questions and the state to send back, and a content that tells a model what is asked', () => {
  const questions = { confirm: { method: 'elicitation/create' as const, params: { message: 'Deploy to prod?', requestedSchema: { type: 'object' } } } }
  const outcome = inputRequiredOutcome('deploy', 'call_1', questions, 'state-1', 12)
  assert.equal(outcome.status, 'input_required')
  assert.equal(outcome.ok, false)
  assert.equal(outcome.error, undefined)
  assert.deepEqual(outcome.inputRequests, questions)
  assert.equal(outcome.requestState, 'state-1')
  assert.match(JSON.parse(outcome.content).input_required, /confirm: a form for the user \("Deploy to prod\?"\)/)
})

test('buildOutcome: an explicit message wins; a non-JSON content becomes the message, capped', () => {
  assert.equal(buildOutcome('t', 'c', { status: 'error', content: '{"error":"a"}', message: 'b' }, 0).error!.message, 'b')
  const raw = buildOutcome('t', 'c', { status: 'error', content: 'p'.repeat(5_000) }, 0)
  assert.equal(raw.error!.message.length, 2_000)
  const truncated = buildOutcome('t', 'c', { status: 'ok', content: 'abc', truncated: true, originalLength: 900 }, 0)
  assert.equal(truncated.truncated, true)
  assert.equal(truncated.originalLength, 900)
})

test('failed: the model reads {"error": message} and the envelope says the same', () => {
  const result = failed('blocked', 'not today "friend"')
  assert.deepEqual(JSON.parse(result.content), { error: 'not today "friend"' })
  const outcome = buildOutcome('t', 'c', result, 0)
  assert.deepEqual(outcome.error, { code: 'GW_ERR_BLOCKED', message: 'not today "friend"' })
})

test('an error raised around a call keeps its own code, under the status its code means', () => {
  const cases: Array<[{ code: string, statusCode: number }, DispatchStatus]> = [
    [UnauthorizedError, 'blocked'],
    [NotFoundError, 'not_found'],
    [RateLimitedError, 'unavailable'],
    [OverloadedError, 'unavailable'],
    [InternalError, 'error'],
    [BadRequestError, 'invalid'],
    [BodyTooLargeError, 'invalid'],
    [UnsupportedMediaTypeError, 'invalid'],
    [UnknownToolsetError, 'invalid']
  ]
  for (const [raised, status] of cases) {
    const reported = statusOfError(raised.code, raised.statusCode)
    assert.equal(reported, status, raised.code)
    const outcome = buildOutcome('t', 'c', failed(reported as Exclude<DispatchStatus, 'ok'>, 'why'), 0, raised)
    assert.deepEqual([outcome.status, outcome.error?.code], [status, raised.code])
  }
  // A code outside the registry answers by its HTTP status.
  assert.equal(statusOfError('FST_SOMETHING', 502), 'error')
  assert.equal(statusOfError('FST_SOMETHING', 405), 'invalid')
})

test('the HTTP status and the media\'s data go beside the envelope, never inside it: the envelope is all the contract\'s fields', () => {
  const data = Buffer.from('an image').toString('base64')
  const media = [{ kind: 'image' as const, mimeType: 'image/png', data, bytes: 8 }]
  const answer = dispatched('t', 'c', { status: 'ok', content: 'a picture', media }, 1)
  assert.equal(answer.httpStatus, 200)
  assert.deepEqual(answer.inlineMedia, media)
  assert.deepEqual(answer.outcome.media, [{ kind: 'image', mimeType: 'image/png', bytes: 8 }])
  // What is serialised, logged and kept for an Idempotency-Key replay holds no base64 and no internal field.
  assert.deepEqual(Object.keys(answer.outcome).filter((key) => !(key in Envelope.properties)), [])
  assert.equal(JSON.stringify(answer.outcome).includes(data), false)
  assert.equal(dispatched('t', 'c', { status: 'ok', content: 'text' }, 1).inlineMedia, undefined)
})
