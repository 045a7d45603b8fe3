// A 2026-07-28 MCP server over Streamable HTTP that answers tools/call with task handles (the Tasks
// extension, SEP-2663), for tests: the SDK 2.4 server implements no part of the extension, so this
// server answers tools/call of its task tools and the extension's three methods itself, as the SEP
// has them, and leaves everything else (server/discover, tools/list, subscriptions/listen) to an SDK
// server behind it, which advertises the extension. A task runs a script (`TaskWork`) that moves
// it through working, input_required, completed or failed; tasks/cancel cancels it. Every message
// is recorded with its Mcp-Name header. The answers to a task's questions show in tasks/get one poll
// late, as an eventually consistent server may show them.
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { LoopbackHttp, sendWebResponse, webRequestOf } from './loopback-http.ts'
import { createMcpHandler, fromJsonSchema, McpServer, type McpHttpHandler } from '@modelcontextprotocol/server'

export const TASKS = 'io.modelcontextprotocol/tasks'
const CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities'

export interface TaskControl {
  working: (message: string) => void
  /** Puts the questions; resolves with the answers once tasks/update brought them all. */
  ask: (inputRequests: Record<string, unknown>, message: string) => Promise<Record<string, unknown>>
  complete: (result: Record<string, unknown>) => void
  fail: (error: { code: number, message: string }) => void
  /** Fires on tasks/cancel. */
  cancelled: AbortSignal
}

export type TaskWork = (task: TaskControl) => Promise<void>

export interface RecordedTaskMessage {
  method?: string
  id?: string | number
  params?: Record<string, unknown>
  mcpName?: string
}

interface TaskRecord {
  taskId: string
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled'
  statusMessage?: string
  inputRequests?: Record<string, unknown>
  result?: Record<string, unknown>
  error?: { code: number, message: string }
  createdAt: string
  lastUpdatedAt: string
  answers: Record<string, unknown>
  /** tasks/get answers that still show the questions after their answers came. */
  lag: number
  onAnswered?: () => void
  abort: AbortController
}

export interface TaskServerOptions {
  /** Whether server/discover offers the extension; a server that does not may still (wrongly) answer with tasks. */
  offer?: boolean
  pollIntervalMs?: number
}

export class TaskServer {
  readonly received: RecordedTaskMessage[] = []
  readonly tasks = new Map<string, TaskRecord>()
  readonly #work: Record<string, TaskWork>
  readonly #options: TaskServerOptions
  readonly #handler: McpHttpHandler
  #http: LoopbackHttp | undefined
  #port = 0

  constructor (work: Record<string, TaskWork>, options: TaskServerOptions = {}) {
    this.#work = work
    this.#options = options
    this.#handler = createMcpHandler(() => {
      const capabilities = { tools: {}, ...(options.offer === false ? {} : { extensions: { [TASKS]: {} } }) }
      const server = new McpServer({ name: 'task-server', version: '1.0.0' }, { capabilities })
      for (const name of Object.keys(work)) {
        server.registerTool(name, { inputSchema: fromJsonSchema({ type: 'object', properties: {} } as never) }, () => ({ content: [{ type: 'text', text: 'no task was made' }] }))
      }
      return server
    }, { legacy: 'reject' })
  }

  get url (): string {
    return `http://127.0.0.1:${this.#port}/mcp`
  }

  requests (method: string): RecordedTaskMessage[] {
    return this.received.filter((m) => m.method === method)
  }

  async start (): Promise<void> {
    this.#http = await LoopbackHttp.listen(async (req, res) => { await this.#handle(req, res) })
    this.#port = this.#http.port
  }

  async close (): Promise<void> {
    for (const task of this.tasks.values()) task.abort.abort()
    await this.#handler.close()
    await this.#http?.close()
  }

  async #handle (req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString('utf8')
    let message: RecordedTaskMessage | undefined
    try {
      message = text === '' ? undefined : JSON.parse(text) as RecordedTaskMessage
    } catch {
      message = undefined
    }
    const mcpName = typeof req.headers['mcp-name'] === 'string' ? req.headers['mcp-name'] : undefined
    if (message !== undefined) this.received.push({ ...message, mcpName })
    const own = message === undefined ? undefined : this.#answer(message)
    if (own !== undefined) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message?.id, ...own }))
      return
    }
    await this.#passOn(req, res, text)
  }

  /** The answer of a message this server handles itself, or undefined to pass it on to the SDK server. */
  #answer (message: RecordedTaskMessage): { result: unknown } | { error: unknown } | undefined {
    const params = message.params ?? {}
    if (message.method === 'tools/call' && typeof params.name === 'string' && this.#work[params.name] !== undefined) {
      const declared = ((params._meta as Record<string, { extensions?: Record<string, unknown> }> | undefined)?.[CAPABILITIES])?.extensions?.[TASKS]
      // An honest server refuses to make a task for a client without the extension (-32021).
      if (declared === undefined && this.#options.offer !== false) {
        return { error: { code: -32021, message: 'Missing required client capability', data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } } }
      }
      return { result: { resultType: 'task', ...this.#created(params.name) } }
    }
    if (message.method === undefined || !message.method.startsWith('tasks/')) return undefined
    const task = this.tasks.get(String(params.taskId))
    if (task === undefined) return { error: { code: -32602, message: `Unknown task: ${String(params.taskId)}` } }
    if (message.method === 'tasks/get') return { result: { resultType: 'complete', ...this.#detailed(task) } }
    if (message.method === 'tasks/update') {
      Object.assign(task.answers, params.inputResponses)
      task.lag = 1
      return { result: { resultType: 'complete' } }
    }
    if (message.method === 'tasks/cancel') {
      task.abort.abort()
      if (task.status === 'working' || task.status === 'input_required') this.#set(task, { status: 'cancelled', statusMessage: 'cancelled by the client' })
      return { result: { resultType: 'complete' } }
    }
    return { error: { code: -32601, message: 'Method not found' } }
  }

  #created (tool: string): Record<string, unknown> {
    const now = new Date().toISOString()
    const task: TaskRecord = { taskId: randomUUID(), status: 'working', createdAt: now, lastUpdatedAt: now, answers: {}, lag: 0, abort: new AbortController() }
    this.tasks.set(task.taskId, task)
    const control: TaskControl = {
      working: (statusMessage) => { this.#set(task, { status: 'working', statusMessage, inputRequests: undefined }) },
      ask: async (inputRequests, statusMessage) => {
        this.#set(task, { status: 'input_required', statusMessage, inputRequests })
        const answered = Promise.withResolvers<void>()
        task.onAnswered = answered.resolve
        await answered.promise
        return Object.fromEntries(Object.keys(inputRequests).map((key) => [key, task.answers[key]]))
      },
      complete: (result) => { this.#set(task, { status: 'completed', result }) },
      fail: (error) => { this.#set(task, { status: 'failed', error }) },
      cancelled: task.abort.signal
    }
    this.#work[tool](control).catch(() => {})
    return this.#detailed(task)
  }

  #set (task: TaskRecord, change: Partial<TaskRecord>): void {
    if (task.status === 'cancelled' || task.status === 'completed' || task.status === 'failed') return
    Object.assign(task, change, { lastUpdatedAt: new Date().toISOString() })
  }

  /** What tasks/get answers (the SEP's DetailedTask); the answers to its questions show one poll late. */
  #detailed (task: TaskRecord): Record<string, unknown> {
    if (task.status === 'input_required' && task.inputRequests !== undefined && Object.keys(task.inputRequests).every((key) => key in task.answers)) {
      if (task.lag > 0) task.lag--
      else task.onAnswered?.()
    }
    const { taskId, status, statusMessage, createdAt, lastUpdatedAt } = task
    return {
      taskId,
      status,
      ...(statusMessage === undefined ? {} : { statusMessage }),
      createdAt,
      lastUpdatedAt,
      ttlMs: 60_000,
      pollIntervalMs: this.#options.pollIntervalMs ?? 100,
      ...(status === 'input_required' ? { inputRequests: task.inputRequests } : {}),
      ...(status === 'completed' ? { result: task.result } : {}),
      ...(status === 'failed' ? { error: task.error } : {})
    }
  }

  async #passOn (req: IncomingMessage, res: ServerResponse, body: string): Promise<void> {
    const response = await this.#handler.fetch(webRequestOf(req, res, this.#port, body))
    await sendWebResponse(res, response)
  }
}
