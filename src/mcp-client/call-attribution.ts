// Which tool call a 2025-era server's own request (elicitation/create, sampling/createMessage or
// roots/list, sent while a tools/call runs) belongs to, so that its question goes to the caller of
// that call and to nobody else: a question put to the wrong caller would show one user another's
// call, and give the server that user's answer.
// - Over Streamable HTTP a server may send such a request on the SSE stream of the POST that
//   carried the tools/call (MCP 2025-11-25, transports: it "SHOULD relate to the originating client
//   request"). The bounded fetch reads every event of each request's stream (answer-binding.ts) and
//   tells which request's stream a server request came on (`arrivedOn`); the stream's request is
//   traced to its call by a private header the call's request options carry to the transport, read
//   and removed here before anything is sent.
// - Otherwise nothing in the message says which request it goes with: over stdio (one pipe), and
//   on the standalone GET stream, where many servers send them (the SDK 2.4 server's
//   ctx.mcpReq.elicitInput does, unless given the call's relatedRequestId). The request then
//   belongs to a call only when that call's is the only request of the gateway in flight on the
//   connection.
// When it cannot be told (several requests in flight, no call in flight, a call already over),
// `callOf` says why, and the request is refused (server-requests.ts).
import type { JSONRPCMessage, Transport, TransportSendOptions } from '@modelcontextprotocol/client'
import type { CallerAsk } from './upstream-questions.ts'

/** How one relayed call's caller is reached from the server's requests. */
export interface CallAsker {
  /** The tool as the server names it, for messages. */
  tool: string
  ask: CallerAsk
  /** A question of the server that the caller could not answer (the error names it): the call's own result should say so. */
  unanswered: (err: Error) => void
}

/** The header a call's request options carry its token in, up to the transport's send. Never sent. */
export const CALL_TOKEN_HEADER = 'x-tool-gateway-call'

/** One call's registration while its request runs; `end` forgets it. */
export interface CallRoute {
  headers: Record<string, string>
  end: () => void
}

type Key = string

/** Server requests remembered with their stream until answered. */
const REMEMBERED_SERVER_REQUESTS = 1_024

/** Ids compared as JSON: 1 and "1" are different requests. */
function keyOf (id: unknown): Key {
  return JSON.stringify(id) ?? 'undefined'
}

function isRequest (message: JSONRPCMessage): message is JSONRPCMessage & { id: string | number, method: string } {
  return 'method' in message && 'id' in message
}

function isResponse (message: JSONRPCMessage): message is JSONRPCMessage & { id: string | number } {
  return 'id' in message && !('method' in message)
}

export class CallAttribution {
  readonly #stdio: boolean
  #next = 0
  #tracking = false
  /** Token → the asker of the call whose request runs under it (undefined: a request no caller can be asked for). */
  readonly #askers = new Map<string, CallAsker | undefined>()
  /** Our request id → the token of the call it belongs to. */
  readonly #tokenOf = new Map<Key, string>()
  /** Requests sent since the connection was up and not answered yet, but for subscriptions/listen (always open, carries no call). */
  readonly #inFlight = new Set<Key>()
  /** A server request id → the request whose stream carried it; null when two streams did. */
  readonly #streamOf = new Map<Key, Key | null>()

  constructor (options: { stdio: boolean }) {
    this.#stdio = options.stdio
  }

  /**
   * Watches what goes through `transport`: the token of each call's request (the header is removed
   * before sending) and which requests are in flight. Installed before the SDK client connects: the
   * client calls the transport's own onmessage before its own handling of a message.
   */
  watch (transport: Transport): void {
    const send = transport.send.bind(transport)
    transport.send = async (message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> => {
      const token = options?.headers?.[CALL_TOKEN_HEADER]
      if (isRequest(message)) {
        const key = keyOf(message.id)
        if (this.#tracking && message.method !== 'subscriptions/listen') this.#inFlight.add(key)
        if (token !== undefined && this.#askers.has(token)) this.#tokenOf.set(key, token)
      }
      if (token === undefined) return await send(message, options)
      const headers = { ...options?.headers }
      delete headers[CALL_TOKEN_HEADER]
      return await send(message, { ...options, headers })
    }
    transport.onmessage = (message) => {
      if (isResponse(message)) this.#inFlight.delete(keyOf(message.id))
    }
  }

  /**
   * The connection is up: requests are counted in flight from now on. Not before: the handshake's
   * probe may read its own answer past the transport's onmessage, which would leave it counted.
   */
  connected (): void {
    this.#tracking = true
  }

  /** The connection is gone: nothing is in flight any more. */
  closed (): void {
    this.#tracking = false
    this.#inFlight.clear()
  }

  /**
   * Registers one request for the time it runs; its options carry the returned headers. Every
   * request of the connection's is registered, a call's with its asker: when it ends, it is no
   * longer in flight even if no answer came (cancelled, timed out).
   */
  begin (asker?: CallAsker): CallRoute {
    const token = `call-${++this.#next}`
    this.#askers.set(token, asker)
    return {
      headers: { [CALL_TOKEN_HEADER]: token },
      end: () => { this.#forget(token) }
    }
  }

  /** The bounded fetch saw a server request `serverRequestId` on the stream of our request `streamRequestId`. */
  arrivedOn (serverRequestId: string | number, streamRequestId: string | number): void {
    const key = keyOf(serverRequestId)
    const stream = keyOf(streamRequestId)
    const known = this.#streamOf.get(key)
    this.#streamOf.delete(key)
    this.#streamOf.set(key, known === undefined || known === stream ? stream : null)
    // Requests the SDK refused before any handler saw them are never looked up: the oldest go.
    if (this.#streamOf.size > REMEMBERED_SERVER_REQUESTS) this.#streamOf.delete(this.#streamOf.keys().next().value as Key)
  }

  /** The call a server request belongs to, or why it cannot be told. */
  callOf (serverRequestId: string | number): CallAsker | string {
    const key = keyOf(serverRequestId)
    const stream = this.#streamOf.get(key)
    this.#streamOf.delete(key)
    if (stream === null) return 'its id came on the streams of two requests'
    let request = stream
    if (request === undefined) {
      const only = this.#onlyInFlight()
      if (typeof only !== 'object') return only
      request = only.request
    }
    const token = this.#tokenOf.get(request)
    const asker = token === undefined ? undefined : this.#askers.get(token)
    return asker ?? 'the request it came with is no tool call of a caller still running (a resource read, a probe, or a call already over)'
  }

  /** The one request in flight, or why there is not one. */
  #onlyInFlight (): { request: Key } | string {
    const where = this.#stdio ? 'on its stdio pipe' : 'and it came on no request\'s stream (the standalone GET stream)'
    if (this.#inFlight.size === 0) return `no request of the gateway was in flight ${this.#stdio ? 'on the connection' : 'when it came on the standalone GET stream'}`
    if (this.#inFlight.size > 1) return `${this.#inFlight.size} requests were in flight ${where}, and nothing in it says which one it belongs to`
    return { request: this.#inFlight.values().next().value as Key }
  }

  #forget (token: string): void {
    this.#askers.delete(token)
    const requests = new Set<Key>()
    for (const [request, owner] of this.#tokenOf) {
      if (owner !== token) continue
      requests.add(request)
      this.#tokenOf.delete(request)
      this.#inFlight.delete(request)
    }
    for (const [serverRequest, stream] of this.#streamOf) {
      if (stream !== null && requests.has(stream)) this.#streamOf.delete(serverRequest)
    }
  }
}
