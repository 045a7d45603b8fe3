// The three requests a 2026-07-28 client sends most (server/discover, tools/list, tools/call),
// answered here rather than by a server the SDK builds for each request: that construction, its
// per-request transport and its web Request/Response cost more than the call itself (bench/README.md).
// Only a request the SDK would serve as it stands comes here (the SDK's own classifier has checked
// the envelope and the headers that are present; the rest is checked below); anything else, a
// refusal included, goes to the SDK, which answers it by the protocol's rules. The answers are the
// ones protocol-server.ts gives through the SDK, field for field; a test holds the two together.
import { Readable } from 'node:stream'
import { CLIENT_CAPABILITIES_META_KEY, type JSONRPCRequest } from '@modelcontextprotocol/server'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Caller } from '../access/caller.ts'
import { isRecord } from '../shared/objects.ts'
import { callTool, mcpToolsOf, progressSender, resultOfTurn, traceOf } from './protocol-server.ts'
import { capabilitiesOf } from './questions.ts'
import { declaresTasks } from './task-view.ts'
import { HTTP_MODERN_CAPABILITIES, MODERN_REVISION, SERVER_INFO_META, SERVER_INSTRUCTIONS, type CacheHints } from './modern-revision.ts'
import { jsonRpcErrorOf } from './rpc-errors.ts'
import { CallAnswer } from './call-answer.ts'
import { pageAt, pageStart } from './tool-pages.ts'

type HotMethod = 'server/discover' | 'tools/list' | 'tools/call'

export interface HotRequest {
  readonly method: HotMethod
  readonly id: string | number
  readonly params: Record<string, unknown>
}

const HOT_METHODS: ReadonlySet<string> = new Set(['server/discover', 'tools/list', 'tools/call'])

/** HTTP's optional white space around a header value, as the SDK strips it before comparing. */
function withoutOws (value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, '')
}

/**
 * The request, when it is one of the three and nothing in it needs the SDK's judgement: the
 * revision served, the standard headers all there (a missing one is the SDK's -32020) and plain
 * (a Base64-encoded Mcp-Name is decoded and compared by the SDK), params of the expected types
 * (else the SDK's -32602).
 */
export function hotRequestOf (request: FastifyRequest, message: JSONRPCRequest, revision: string | undefined): HotRequest | undefined {
  if (revision !== MODERN_REVISION || !HOT_METHODS.has(message.method)) return undefined
  const { headers } = request
  if (headers['mcp-protocol-version'] === undefined || headers['mcp-method'] === undefined) return undefined
  const params: Record<string, unknown> = message.params ?? {}
  if (message.method === 'tools/call') {
    const name = headers['mcp-name']
    if (typeof params.name !== 'string' || typeof name !== 'string' || withoutOws(name) !== params.name) return undefined
    if (params.arguments !== undefined && !isRecord(params.arguments)) return undefined
  } else if (message.method === 'tools/list') {
    if (params.cursor !== undefined && typeof params.cursor !== 'string') return undefined
  }
  return { method: message.method as HotMethod, id: message.id, params }
}

/** A JSON-RPC answer from its already-serialised result. */
function resultMessage (id: string | number, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`
}

const RESULT_END = Buffer.from('}')

/** Past this size an answer goes out as its parts rather than one copy of them (see sendResult). */
const COPY_BELOW_BYTES = 16_384

/**
 * Sends a JSON-RPC answer around a result encoded once. A list page of a large catalogue is hundreds
 * of KB: joining it with the request's id into a new buffer costs a fresh allocation of that size
 * (mapped, page-faulted and freed by the system for every request); its parts are written as they are.
 */
async function sendResult (reply: FastifyReply, id: string | number, result: Buffer): Promise<FastifyReply> {
  const head = Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`)
  reply.type('application/json')
  if (result.length < COPY_BELOW_BYTES) return await reply.send(Buffer.concat([head, result, RESULT_END]))
  return await reply
    .header('content-length', head.length + result.length + RESULT_END.length)
    .send(Readable.from([head, result, RESULT_END], { objectMode: false }))
}

export class HotMethods {
  readonly #app: FastifyInstance
  readonly #hints: CacheHints
  readonly #discover: Buffer
  /** Serialised list pages per cached tool list: they live exactly as long as the list they come from. */
  readonly #pages = new WeakMap<object, Map<number, Buffer>>()

  constructor (app: FastifyInstance, hints: CacheHints) {
    this.#app = app
    this.#hints = hints
    this.#discover = Buffer.from(JSON.stringify({
      supportedVersions: [MODERN_REVISION],
      capabilities: HTTP_MODERN_CAPABILITIES,
      instructions: SERVER_INSTRUCTIONS,
      resultType: 'complete',
      ...hints.discover,
      _meta: SERVER_INFO_META
    }))
  }

  async answer (hot: HotRequest, caller: () => Caller, reply: FastifyReply): Promise<FastifyReply> {
    switch (hot.method) {
      case 'server/discover':
        return await sendResult(reply, hot.id, this.#discover)
      case 'tools/list':
        return await this.#list(hot, caller(), reply)
      case 'tools/call':
        return await this.#call(hot, caller(), reply)
    }
  }

  async #json (reply: FastifyReply, body: string): Promise<FastifyReply> {
    return await reply.type('application/json').send(body)
  }

  async #list (hot: HotRequest, caller: Caller, reply: FastifyReply): Promise<FastifyReply> {
    const listed = await mcpToolsOf(this.#app, caller)
    let start: number
    try {
      start = pageStart(listed.tools, hot.params.cursor as string | undefined)
    } catch (error) {
      return await this.#json(reply, JSON.stringify({ jsonrpc: '2.0', id: hot.id, error: jsonRpcErrorOf(error) }))
    }
    let pages = this.#pages.get(listed)
    if (pages === undefined) {
      pages = new Map()
      this.#pages.set(listed, pages)
    }
    // Keyed by where the page starts, not by the cursor's text: at most one entry per tool.
    let page = pages.get(start)
    if (page === undefined) {
      page = Buffer.from(JSON.stringify({ ...pageAt(listed.tools, start, this.#app.gateway.config.mcp.pageSize), resultType: 'complete', ...this.#hints.list, _meta: SERVER_INFO_META }))
      pages.set(start, page)
    }
    return await sendResult(reply, hot.id, page)
  }

  async #call (hot: HotRequest, caller: Caller, reply: FastifyReply): Promise<FastifyReply> {
    const { params } = hot
    const meta = isRecord(params._meta) ? params._meta : undefined
    const answer = new CallAnswer(reply)
    let result: Record<string, unknown>
    try {
      result = resultOfTurn(await callTool(this.#app, caller, {
        name: params.name as string,
        arguments: params.arguments,
        onProgress: progressSender(meta?.progressToken as string | number | undefined, (progress) => { answer.notify('notifications/progress', progress) }),
        trace: traceOf(this.#app, meta),
        capabilities: capabilitiesOf(meta, undefined),
        tasks: declaresTasks(meta?.[CLIENT_CAPABILITIES_META_KEY]),
        inputResponses: params.inputResponses,
        requestState: typeof params.requestState === 'string' ? params.requestState : undefined
      }))
    } catch (error) {
      return await answer.end(JSON.stringify({ jsonrpc: '2.0', id: hot.id, error: jsonRpcErrorOf(error) }))
    }
    // A result, MCP's InputRequiredResult or a CreateTaskResult (each says which: resultType).
    const complete = { resultType: 'complete', ...result, _meta: { ...(isRecord(result._meta) ? result._meta : undefined), ...SERVER_INFO_META } }
    return await answer.end(resultMessage(hot.id, JSON.stringify(complete)))
  }
}
