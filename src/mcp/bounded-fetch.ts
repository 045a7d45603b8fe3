// The fetch an MCP server over Streamable HTTP is spoken to with. It stands between the server's
// answers and the SDK, which holds whatever it is sent: a JSON answer is read whole and an SSE
// event is held until it ends, however large (a gzip bomb of 306 KB decodes to gigabytes; fetch
// decodes gzip, br and deflate, so what is counted here is the decoded bytes). So:
// - one message is capped (JSON body, SSE event): past the cap the download stops there and the
//   request fails with an error naming the server and the cap; the connection stays up;
// - an answer is taken only from the response of the POST that carried its request: a response
//   naming another request's id, or progress for another request, is refused there, so that a
//   server that mixes up answers can never hand one caller another's result;
// - error bodies (which the SDK puts in its messages) are cut short.
import { INTERNAL_ERROR, type FetchLike, type JSONRPCMessage } from '@modelcontextprotocol/client'
import { McpAnswerTooLargeError, McpInvalidAnswerError } from '../errors.ts'
import { eventFields, SseEventSplitter } from './sse-events.ts'
import { TopLevelScanner } from './top-level-scanner.ts'

/** Bytes of an error body kept for the SDK's message; the rest is not downloaded. */
export const ERROR_BODY_BYTES = 65_536

/** Set in the `data` of the error answer that stands for a refused one, so its request fails with the named error. */
export const REFUSAL_MARK = 'tool-gateway/refused'

export type Refusal = 'too_large' | 'foreign_answer'

export interface BoundedFetchOptions {
  server: string
  capBytes: number
  /** Told of every answer refused or dropped, for the log. */
  onRefused: (event: { reason: string, server: string, method: string | undefined }) => void
  fetch?: FetchLike
}

/** What the request a response answers is: its id (absent for a notification, or a GET). */
interface Sent {
  id: string | number | undefined
  method: string | undefined
  /** A GET that resumes a request's stream: the SDK itself gives its answers that request's id. */
  resuming: boolean
}

export function boundedFetch (options: BoundedFetchOptions): FetchLike {
  const fetchImpl = options.fetch ?? fetch
  return async (url, init) => {
    const response = await fetchImpl(url, init)
    const body = response.body
    if (body === null) return response
    const sent = sentRequest(init)
    const type = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase()
    let bounded: ReadableStream<Uint8Array>
    if (!response.ok || response.status === 202) bounded = cutShort(body, ERROR_BODY_BYTES)
    else if (type === 'application/json') bounded = boundedJson(body, sent, options)
    else if (type === 'text/event-stream') bounded = boundedEvents(body, sent, options)
    else bounded = cutShort(body, ERROR_BODY_BYTES)
    return new Response(bounded, { status: response.status, statusText: response.statusText, headers: response.headers })
  }
}

function sentRequest (init: RequestInit | undefined): Sent {
  const resuming = new Headers(init?.headers).has('last-event-id')
  if (typeof init?.body !== 'string') return { id: undefined, method: undefined, resuming }
  const scanner = new TopLevelScanner()
  scanner.feed(Buffer.from(init.body))
  return { id: scanner.id, method: methodOf(init.body), resuming }
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

/** A JSON answer, passed on as it comes; it fails (the SDK's read of it rejects) past the cap or when it answers another request. */
function boundedJson (body: ReadableStream<Uint8Array>, sent: Sent, options: BoundedFetchOptions): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  const scanner = new TopLevelScanner()
  let bytes = 0
  return new ReadableStream<Uint8Array>({
    async pull (controller) {
      const { done, value } = await reader.read()
      if (done) {
        // The SDK parses the body once it has ended: ending it with an error instead keeps another request's answer from it.
        if (!scanner.hasMethod && scanner.id !== sent.id) {
          const reason = foreignMessage(scanner.id, sent)
          options.onRefused({ reason, server: options.server, method: sent.method })
          controller.error(new McpInvalidAnswerError(reason))
          return
        }
        controller.close()
        return
      }
      bytes += value.length
      if (bytes > options.capBytes) {
        await reader.cancel().catch(() => {})
        const reason = tooLargeMessage(bytes, options.capBytes)
        options.onRefused({ reason, server: options.server, method: sent.method })
        controller.error(new McpAnswerTooLargeError(options.server, reason))
        return
      }
      scanner.feed(value)
      controller.enqueue(value)
    },
    cancel: (reason) => reader.cancel(reason)
  })
}

function foreignMessage (id: string | number | undefined, sent: Sent): string {
  const answered = id === undefined ? 'no request id' : `request id ${JSON.stringify(id).slice(0, 100)}`
  const own = sent.id === undefined ? 'a stream that carries no answers' : `the response of request ${JSON.stringify(sent.id)}${sent.method ? ` (${sent.method})` : ''}`
  return `sent an answer naming ${answered} on ${own}; it was refused`
}

/** What one complete event of the stream is, as far as binding goes; `foreign` carries the id it answered. */
type Verdict = 'pass' | 'drop' | { foreign: string | number }

function judge (raw: Buffer, sent: Sent): Verdict {
  const { type, data } = eventFields(raw)
  if (data.length === 0 || (type !== undefined && type !== 'message')) return 'pass'
  const scanner = new TopLevelScanner()
  for (const part of data) {
    scanner.feed(part)
    // Data lines are joined by a newline, which is whitespace to JSON.
    scanner.feed(NEWLINE)
  }
  if (sent.resuming) return 'pass'
  if (!scanner.hasMethod) {
    if (scanner.id === undefined) return 'pass' // not JSON-RPC: the SDK reports it as such
    return sent.id !== undefined && scanner.id === sent.id ? 'pass' : { foreign: scanner.id }
  }
  return progressForAnother(data, sent) ? 'drop' : 'pass'
}

const NEWLINE = Buffer.from('\n')

/** A progress notification for another request than this stream's (the SDK's progress token is the request id). */
function progressForAnother (data: Buffer[], sent: Sent): boolean {
  let message: unknown
  try {
    message = JSON.parse(Buffer.concat(data.flatMap((part, i) => i === 0 ? [part] : [NEWLINE, part])).toString('utf8'))
  } catch {
    return false
  }
  const { method, params } = message as { method?: unknown, params?: { progressToken?: unknown } }
  if (method !== 'notifications/progress') return false
  return sent.id === undefined || params?.progressToken !== sent.id
}

/** The error answer put in place of a refused one: its request fails at once, with the reason. */
function refusalEvent (id: string | number, message: string, refusal: Refusal): Uint8Array {
  const answer = { jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message, data: { [REFUSAL_MARK]: refusal } } } as JSONRPCMessage
  return Buffer.from(`event: message\ndata: ${JSON.stringify(answer)}\n\n`)
}

/** An SSE stream, event by event: each held (within the cap) until judged, then passed on, dropped, or refused. */
function boundedEvents (body: ReadableStream<Uint8Array>, sent: Sent, options: BoundedFetchOptions): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  const splitter = new SseEventSplitter(options.capBytes)
  const refuse = async (controller: ReadableStreamDefaultController<Uint8Array>, reason: string, refusal: Refusal): Promise<void> => {
    options.onRefused({ reason, server: options.server, method: sent.method })
    await reader.cancel().catch(() => {})
    // A request's own stream ends with the error answer; a stream of no request just ends (the SDK opens it again).
    if (sent.id !== undefined && !sent.resuming) controller.enqueue(refusalEvent(sent.id, reason, refusal))
    controller.close()
  }
  return new ReadableStream<Uint8Array>({
    async pull (controller) {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) {
          // An event cut off by the end of the stream is dropped, as SSE readers do.
          controller.close()
          return
        }
        let passed = false
        for (const piece of splitter.push(value)) {
          if (piece.kind === 'oversized') {
            await refuse(controller, tooLargeMessage(piece.bytes, options.capBytes), 'too_large')
            return
          }
          const verdict = judge(piece.raw, sent)
          // On a stream of no request (the GET one), an answer is dropped and the stream goes on.
          if (typeof verdict === 'object' && sent.id === undefined) {
            options.onRefused({ reason: foreignMessage(verdict.foreign, sent), server: options.server, method: sent.method })
            continue
          }
          if (typeof verdict === 'object') {
            await refuse(controller, foreignMessage(verdict.foreign, sent), 'foreign_answer')
            return
          }
          if (verdict === 'drop') {
            options.onRefused({ reason: 'progress for another request dropped', server: options.server, method: sent.method })
            continue
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
