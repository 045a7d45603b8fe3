// Which request the messages of one HTTP response of an MCP server may answer, and whether a given
// message does. Over Streamable HTTP each request is its own POST and its answer comes back on that
// POST's response (MCP 2025-11-25, transports); the SDK client routes answers by id alone, and its
// ids are sequential (a server can guess another caller's). So a response answers only the request
// it carries, and the standalone GET stream answers none ("MUST NOT send a JSON-RPC response on
// the stream unless resuming a stream associated with a previous client request"). A GET that
// resumes a stream (Last-Event-ID) is bound to the request whose stream gave that event id, and
// to none when no request's did: the SDK gives its answers no id of its own.
import { INTERNAL_ERROR, type JSONRPCMessage } from '@modelcontextprotocol/client'
import { eventFields } from './sse-events.ts'
import { TopLevelScanner } from './top-level-scanner.ts'

/** Set in the `data` of the error answer that stands for a refused one, so its request fails with the named error. */
export const REFUSAL_MARK = 'tool-gateway/refused'

export type Refusal = 'too_large' | 'foreign_answer' | 'no_answer'

/** The request a response's messages may answer: its id (none for a notification or the standalone GET stream). */
export interface Bound {
  id: string | number | undefined
  method: string | undefined
}

/** Event ids remembered for resumption; a stream resumed from an older one is bound to no request. */
const REMEMBERED_EVENT_IDS = 1_024

/** The event ids the SDK saw on each request's stream, so that a resumption is bound to the same request. */
export class StreamBindings {
  /** Event id → the request whose stream carried it; null when streams of two requests did. */
  readonly #requests = new Map<string, Bound | null>()

  record (eventId: string, bound: Bound): void {
    const known = this.#requests.get(eventId)
    this.#requests.delete(eventId)
    this.#requests.set(eventId, known === undefined || known?.id === bound.id ? bound : null)
    if (this.#requests.size > REMEMBERED_EVENT_IDS) this.#requests.delete(this.#requests.keys().next().value as string)
  }

  /** The request a GET resuming from `lastEventId` continues the stream of, if any. */
  resumed (lastEventId: string): Bound {
    return this.#requests.get(lastEventId) ?? { id: undefined, method: undefined }
  }
}

/** What one message of a response is, as far as binding goes; `foreign` carries the id it named. */
export type Verdict = 'answer' | 'pass' | 'drop' | { foreign: string | number | undefined }

const NEWLINE = Buffer.from('\n')
const BOM = Buffer.from([0xef, 0xbb, 0xbf])

/** A message of a JSON body or an SSE event, read as the SDK reads it. */
export function judgeMessage (scanner: TopLevelScanner, data: Buffer[] | undefined, bound: Bound): Verdict {
  if (!scanner.hasMethod) {
    // An error answer without id answers nothing (the SDK has no request to give it to).
    if (!scanner.hasId) return 'pass'
    return bound.id !== undefined && scanner.id === bound.id ? 'answer' : { foreign: scanner.id }
  }
  return data !== undefined && progressForAnother(data, bound) ? 'drop' : 'pass'
}

/** What an SSE event is: its verdict, the event id the SDK will remember from it, and the id of the server's own request it carries, if any. */
export interface JudgedEvent {
  verdict: Verdict
  eventId: string | undefined
  serverRequestId?: string | number
}

/** One complete SSE event. `first`: the stream's first event (a BOM the SDK's decoder strips). */
export function judgeEvent (raw: Buffer, bound: Bound, first: boolean): JudgedEvent {
  const { type, data, id } = eventFields(first && raw.subarray(0, 3).equals(BOM) ? raw.subarray(3) : raw)
  // The SDK's parser hands on no event without data; one of another type is not read as a message.
  if (data.length === 0) return { verdict: 'pass', eventId: undefined }
  if (type !== undefined && type !== 'message') return { verdict: 'pass', eventId: id }
  const scanner = new TopLevelScanner()
  for (const part of data) {
    scanner.feed(part)
    // Data lines are joined by a newline, which is whitespace to JSON.
    scanner.feed(NEWLINE)
  }
  const verdict = judgeMessage(scanner, data, bound)
  // A request of the server's (elicitation/create, ...): which stream it came on tells which call it belongs to.
  if (scanner.hasMethod && scanner.hasId && scanner.id !== undefined) return { verdict, eventId: id, serverRequestId: scanner.id }
  return { verdict, eventId: id }
}

/** A progress notification for another request than this stream's (the SDK's progress token is the request id). */
function progressForAnother (data: Buffer[], bound: Bound): boolean {
  let message: unknown
  try {
    message = JSON.parse(Buffer.concat(data.flatMap((part, i) => i === 0 ? [part] : [NEWLINE, part])).toString('utf8'))
  } catch {
    return false
  }
  const { method, params } = message as { method?: unknown, params?: { progressToken?: unknown } }
  if (method !== 'notifications/progress') return false
  return bound.id === undefined || params?.progressToken !== bound.id
}

function requestName (bound: Bound): string {
  return `request ${JSON.stringify(bound.id)}${bound.method ? ` (${bound.method})` : ''}`
}

export function foreignMessage (id: string | number | undefined, bound: Bound): string {
  const answered = id === undefined ? 'an unreadable request id' : `request id ${JSON.stringify(id).slice(0, 100)}`
  const own = bound.id === undefined ? 'a stream that carries no answers' : `the response of ${requestName(bound)}`
  return `sent an answer naming ${answered} on ${own}; it was refused`
}

export function noAnswerMessage (bound: Bound): string {
  return `ended the response of ${requestName(bound)} without answering it (nor leaving an event id to resume it from)`
}

export function notAnAnswerMessage (bound: Bound): string {
  return `sent a message that is no answer as the JSON response of ${requestName(bound)}; it was refused`
}

/** The error answer put in place of a refused or missing one: its request fails at once, with the reason. */
export function refusalEvent (id: string | number, message: string, refusal: Refusal): Uint8Array {
  const answer = { jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message, data: { [REFUSAL_MARK]: refusal } } } as JSONRPCMessage
  return Buffer.from(`event: message\ndata: ${JSON.stringify(answer)}\n\n`)
}
