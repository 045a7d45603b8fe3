// The fetch an MCP server over Streamable HTTP is spoken to with. It stands between the server's
// answers and the SDK, which holds whatever it is sent: a JSON answer is read whole and an SSE
// event is held until it ends, however large (a gzip bomb of 306 KB decodes to gigabytes; fetch
// decodes gzip, br and deflate, so what is counted here is the decoded bytes). So:
// - one message is capped (JSON body, SSE event): past the cap the download stops there and the
//   request fails with an error naming the server and the cap; the connection stays up;
// - an answer is taken only from the response of the POST that carried its request (answer-binding.ts):
//   a response naming another request's id, or progress for another request, is refused there, so
//   that a server that mixes up answers can never hand one caller another's result; answers on the
//   standalone GET stream are dropped; a request's stream that ends without its answer fails it
//   (except a subscriptions/listen stream, 2026-07-28, whose end without an answer is the
//   protocol's sign of a dropped subscription, not a misbehaving server);
// - a request of the server's on a request's stream is told to the link, which finds the call it
//   belongs to by that stream (call-attribution.ts);
// - error bodies (which the SDK puts in its messages) are cut short.
// Over stdio one pipe carries every answer: there the id is all that binds an answer to its request
// (the operator's own processes; bounded-read-buffer.ts caps their messages).
import type { FetchLike } from '@modelcontextprotocol/client'
import { McpAnswerTooLargeError, McpInvalidAnswerError } from '../shared/errors.ts'
import {
  foreignMessage, judgeEvent, judgeMessage, noAnswerMessage, notAnAnswerMessage, refusalEvent, StreamBindings,
  type Bound, type Refusal
} from './answer-binding.ts'
import { SseEventSplitter } from './sse-events.ts'
import { TopLevelScanner } from './top-level-scanner.ts'

const LISTEN = 'subscriptions/listen'

/** Bytes of an error body kept for the SDK's message; the rest is not downloaded. */
export const ERROR_BODY_BYTES = 65_536

export interface BoundedFetchOptions {
  server: string
  capBytes: number
  /** Told of every answer refused or dropped, for the log. */
  onRefused: (event: { reason: string, server: string, method: string | undefined }) => void
  /** Told of every request of the server's that came on the stream of one of ours (call-attribution.ts). */
  onServerRequest?: (serverRequestId: string | number, streamRequestId: string | number) => void
  fetch?: FetchLike
}

export function boundedFetch (options: BoundedFetchOptions): FetchLike {
  const fetchImpl = options.fetch ?? fetch
  const bindings = new StreamBindings()
  return async (url, init) => {
    const response = await fetchImpl(url, init)
    const body = response.body
    if (body === null) return response
    const bound = boundTo(init, bindings)
    const type = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase()
    // The SDK reads the body of any successful GET as an event stream, whatever its type or status says.
    const get = (init?.method ?? 'GET').toUpperCase() === 'GET'
    let bounded: ReadableStream<Uint8Array>
    if (!response.ok || (!get && response.status === 202)) bounded = cutShort(body, ERROR_BODY_BYTES)
    else if (get || type === 'text/event-stream') bounded = boundedEvents(body, bound, bindings, options)
    else if (type === 'application/json') bounded = boundedJson(body, bound, options)
    else bounded = cutShort(body, ERROR_BODY_BYTES)
    return new Response(bounded, { status: response.status, statusText: response.statusText, headers: response.headers })
  }
}

/** The request whose answer this response may carry: the POSTed one, or the one whose stream a GET resumes. */
function boundTo (init: RequestInit | undefined, bindings: StreamBindings): Bound {
  if (typeof init?.body !== 'string') {
    const lastEventId = new Headers(init?.headers).get('last-event-id')
    return lastEventId === null ? { id: undefined, method: undefined } : bindings.resumed(lastEventId)
  }
  // The SDK's own message: only a request has an id (and a method) at its top level.
  const scanner = new TopLevelScanner()
  scanner.feed(Buffer.from(init.body))
  return scanner.hasMethod ? { id: scanner.id, method: methodOf(init.body) } : { id: undefined, method: undefined }
}

/** The request's method, for messages (it is near the start of what the SDK sends). */
function methodOf (body: string): string | undefined {
  return /"method"\s*:\s*"([^"\\]{1,100})"/.exec(body.slice(0, 4096))?.[1]
}

function tooLargeMessage (bytes: number, capBytes: number): string {
  return `its answer went over the ${capBytes}-byte cap on one message (${bytes} bytes read; mcp.upstreamMaxMessageBytes or the server's maxMessageBytes); it was refused and the download stopped (the connection stays up)`
}

/** At most `limit` bytes of `body`; the rest is not read. */
function cutShort (body: ReadableStream<Uint8Array>, limit: number): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  let left = limit
  return new ReadableStream<Uint8Array>({
    async pull (controller) {
      const { done, value } = await reader.read()
      if (done) {
        controller.close()
        return
      }
      if (value.length >= left) {
        controller.enqueue(value.subarray(0, left))
        controller.close()
        await reader.cancel().catch(() => {})
        return
      }
      left -= value.length
      controller.enqueue(value)
    },
    cancel: (reason) => reader.cancel(reason)
  })
}

/** A JSON answer, passed on as it comes; it fails (the SDK's read of it rejects) past the cap or when it is not this request's answer. */
function boundedJson (body: ReadableStream<Uint8Array>, bound: Bound, options: BoundedFetchOptions): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  const scanner = new TopLevelScanner()
  let bytes = 0
  const refused = (reason: string): Error => {
    options.onRefused({ reason, server: options.server, method: bound.method })
    return new McpInvalidAnswerError(reason)
  }
  return new ReadableStream<Uint8Array>({
    async pull (controller) {
      const { done, value } = await reader.read()
      if (done) {
        // The SDK parses the body once it has ended: ending it with an error instead keeps anything
        // but this request's answer from it (another's, a batch, a request of the server's).
        const verdict = bound.id === undefined ? 'pass' : judgeMessage(scanner, undefined, bound)
        if (typeof verdict === 'object') controller.error(refused(foreignMessage(verdict.foreign, bound)))
        else if (verdict !== 'answer' && bound.id !== undefined) controller.error(refused(notAnAnswerMessage(bound)))
        else controller.close()
        return
      }
      bytes += value.length
      if (bytes > options.capBytes) {
        await reader.cancel().catch(() => {})
        const reason = tooLargeMessage(bytes, options.capBytes)
        options.onRefused({ reason, server: options.server, method: bound.method })
        controller.error(new McpAnswerTooLargeError(options.server, reason))
        return
      }
      scanner.feed(value)
      controller.enqueue(value)
    },
    cancel: (reason) => reader.cancel(reason)
  })
}

/** A request's own stream ends with the error answer; a stream of no request just ends (the SDK opens it again). */
function endStream (controller: ReadableStreamDefaultController<Uint8Array>, bound: Bound, reason: string, refusal: Refusal): void {
  if (bound.id !== undefined) controller.enqueue(refusalEvent(bound.id, reason, refusal))
  controller.close()
}

/**
 * An SSE stream, event by event: each held (within the cap) until judged, then passed on, dropped,
 * or refused. A request's stream that ends without its answer, and without an event id the SDK
 * would resume it from, ends with an error answer: the SDK would otherwise wait for it until the
 * call's deadline.
 */
function boundedEvents (body: ReadableStream<Uint8Array>, bound: Bound, bindings: StreamBindings, options: BoundedFetchOptions): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  const splitter = new SseEventSplitter(options.capBytes)
  let first = true
  let answered = false
  let resumable = false
  const tell = (reason: string): void => { options.onRefused({ reason, server: options.server, method: bound.method }) }
  const end = (controller: ReadableStreamDefaultController<Uint8Array>, reason: string, refusal: Refusal): void => {
    tell(reason)
    endStream(controller, bound, reason, refusal)
  }
  return new ReadableStream<Uint8Array>({
    async pull (controller) {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) {
          // An event cut off by the end of the stream is dropped, as SSE readers do.
          if (bound.id !== undefined && !answered && !resumable && bound.method !== LISTEN) end(controller, noAnswerMessage(bound), 'no_answer')
          else controller.close()
          return
        }
        let passed = false
        for (const piece of splitter.push(value)) {
          if (piece.kind === 'oversized') {
            await reader.cancel().catch(() => {})
            end(controller, tooLargeMessage(piece.bytes, options.capBytes), 'too_large')
            return
          }
          const { verdict, eventId, serverRequestId } = judgeEvent(piece.raw, bound, first)
          first = false
          if (typeof verdict === 'object') {
            // On a stream of no request (the GET one), an answer is dropped and the stream goes on.
            if (bound.id === undefined) {
              tell(foreignMessage(verdict.foreign, bound))
              continue
            }
            await reader.cancel().catch(() => {})
            end(controller, foreignMessage(verdict.foreign, bound), 'foreign_answer')
            return
          }
          if (verdict === 'drop') {
            tell('progress for another request dropped')
            continue
          }
          if (verdict === 'answer') answered = true
          if (serverRequestId !== undefined && bound.id !== undefined) options.onServerRequest?.(serverRequestId, bound.id)
          if (eventId !== undefined) {
            bindings.record(eventId, bound)
            resumable = true
          }
          controller.enqueue(piece.raw)
          passed = true
        }
        if (passed) return
      }
    },
    cancel: (reason) => reader.cancel(reason)
  })
}
