// A task handle followed to its end (the Tasks extension, io.modelcontextprotocol/tasks, SEP-2663).
// The task is polled with tasks/get at the interval it asks for (pollIntervalMs, kept within 100 ms
// and 5 s); its statusMessage reaches the caller as progress; its questions (input_required) go to
// the call's caller once each, the answers to the server with tasks/update (a key answered is never
// asked again, though a poll may still show it outstanding: the update is eventually consistent);
// completed gives the call its result, mapped as any tools/call result, failed the server's error,
// cancelled a cancellation. When the call ends first (its deadline, its caller gone) or fails on the
// gateway's side, the server is sent tasks/cancel: nobody would read the task's end.
// The SDK 2.4 client implements no part of the extension, but sends its requests when given a
// result schema: tasks/get and tasks/cancel are the names it lets through to a 2026-07-28 server
// for it, tasks/update is no method of its own and goes through as any extension method; over
// Streamable HTTP it sets Mcp-Name to the task id, as the extension requires.
import { setTimeout as sleep } from 'node:timers/promises'
import type { StandardSchemaV1 } from '@modelcontextprotocol/client'
import type { InputResponses } from '../registry/types.ts'
import { CancelledError, McpConnectionLostError, McpInvalidAnswerError, McpRequestFailedError, McpUnavailableError } from '../shared/errors.ts'
import { isRecord, messageOf } from '../shared/objects.ts'
import type { CallOptions } from './call-options.ts'
import { tasksDeclaration } from './client-capabilities.ts'
import type { McpConnection } from './connection.ts'
import { mapCallResult, type MappedResult } from './result.ts'
import { readTask, type TaskState } from './task-handles.ts'
import { askCaller, upstreamQuestions, type CallerSide } from './upstream-questions.ts'

export const POLL_MIN_MS = 100
export const POLL_MAX_MS = 5_000
/** When the task names no interval. */
export const POLL_DEFAULT_MS = 1_000
/** tasks/cancel is sent after the call has ended: it gets this long. */
const CANCEL_TIMEOUT_MS = 5_000
/** Polls in a row that may fail because the connection is away (it reconnects; the task lives on the server). */
const POLL_FAILURES = 3

// The task's own shape is read by readTask; the SDK is only asked for an object.
const ANY_RESULT: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'tool-gateway',
    validate: (value) => isRecord(value) ? { value } : { issues: [{ message: 'a result must be an object' }] }
  }
}

export function pollInterval (requested: number | undefined): number {
  return Math.min(POLL_MAX_MS, Math.max(POLL_MIN_MS, requested ?? POLL_DEFAULT_MS))
}

type TaskMethod = 'tasks/get' | 'tasks/update' | 'tasks/cancel'

export async function followTask (connection: McpConnection, tool: string, handle: Record<string, unknown>, options: CallOptions, caller: CallerSide): Promise<MappedResult> {
  const first = readTask(handle)
  if (typeof first === 'string') {
    throw new McpInvalidAnswerError(`MCP server "${connection.server}" answered tools/call "${tool}" with a task handle that cannot be followed: ${first}`)
  }
  caller.logger.debug({ taskId: first.taskId, status: first.status }, 'MCP server answered with a task: following it')
  return await new TaskFollower(connection, tool, first, options, caller).follow()
}

class TaskFollower {
  readonly #connection: McpConnection
  readonly #tool: string
  readonly #options: CallOptions
  readonly #caller: CallerSide
  readonly #taskId: string
  /** The task as its messages name it. */
  readonly #named: string
  /** Keys of questions answered: never asked again. */
  readonly #answered = new Set<string>()
  #task: TaskState
  #interval: number
  #told: string | undefined
  #reports = 0
  #failures = 0

  constructor (connection: McpConnection, tool: string, first: TaskState, options: CallOptions, caller: CallerSide) {
    this.#connection = connection
    this.#tool = tool
    this.#caller = caller
    this.#task = first
    this.#taskId = first.taskId
    this.#interval = pollInterval(first.pollIntervalMs)
    this.#named = `tools/call "${tool}" (task ${JSON.stringify(first.taskId.slice(0, 100))})`
    // Every task request carries the call's credentials: the server checks them on each (SEP-2663, security).
    this.#options = { signal: caller.signal, traceHeaders: options.traceHeaders, authorization: options.authorization }
  }

  get #server (): string { return this.#connection.server }

  async follow (): Promise<MappedResult> {
    try {
      for (;;) {
        const ended = this.#ended()
        if (ended !== undefined) return ended
        if (this.#task.status === 'input_required') await this.#answer()
        await sleep(this.#interval, undefined, { signal: this.#caller.signal })
        this.#task = await this.#poll()
      }
    } catch (err) {
      if (!isTerminal(this.#task)) await this.#cancel()
      throw err
    }
  }

  /** Tells what the task says of itself; its result once completed, a throw once failed or cancelled. */
  #ended (): MappedResult | undefined {
    const task = this.#task
    if (task.statusMessage !== undefined && task.statusMessage !== this.#told) {
      this.#told = task.statusMessage
      this.#caller.reportProgress?.({ progress: ++this.#reports, message: task.statusMessage })
    }
    if (task.pollIntervalMs !== undefined) this.#interval = pollInterval(task.pollIntervalMs)
    if (task.status === 'completed') return mapCallResult(task.result)
    if (task.status === 'failed') throw new McpRequestFailedError(this.#server, `MCP server "${this.#server}" failed ${this.#named}: ${describeError(task.error)}`)
    if (task.status === 'cancelled') {
      throw new CancelledError(`MCP server "${this.#server}" cancelled ${this.#named}${task.statusMessage === undefined ? '' : `: ${task.statusMessage}`}`)
    }
    return undefined
  }

  async #send (method: TaskMethod, params: Record<string, unknown>, options = this.#options): Promise<Record<string, unknown>> {
    // The extension's own requests declare it, as the tools/call that made the task did.
    const request = { method, params: { taskId: this.#taskId, ...params, _meta: tasksDeclaration() } }
    return await this.#connection.request(`${method} for ${this.#named}`, (client, sdkOptions) => client.request(request, ANY_RESULT, sdkOptions), options)
  }

  /** The task as it is now; the one known while the connection is briefly away. */
  async #poll (): Promise<TaskState> {
    let value: Record<string, unknown>
    try {
      value = await this.#send('tasks/get', {})
    } catch (err) {
      const away = err instanceof McpUnavailableError || err instanceof McpConnectionLostError
      if (this.#caller.signal.aborted || !away || ++this.#failures >= POLL_FAILURES) throw err
      return this.#task
    }
    this.#failures = 0
    const next = readTask(value, this.#taskId)
    if (typeof next === 'string') throw new McpInvalidAnswerError(`MCP server "${this.#server}" answered tasks/get for ${this.#named} with no task: ${next}`)
    return next
  }

  /** The questions not answered yet go to the caller, the answers to the server. */
  async #answer (): Promise<void> {
    const questions = upstreamQuestions(this.#server, this.#task.inputRequests ?? {})
    const pending = Object.fromEntries(Object.entries(questions).filter(([key]) => !this.#answered.has(key)))
    if (Object.keys(pending).length === 0) return
    const answers: InputResponses = await askCaller(this.#caller.ask, this.#server, this.#tool, pending)
    await this.#send('tasks/update', { inputResponses: answers })
    for (const key of Object.keys(answers)) this.#answered.add(key)
  }

  /** Sent once the call has ended or failed here: the call's signal may have fired, so it has its own deadline. */
  async #cancel (): Promise<void> {
    const options = { timeoutMs: CANCEL_TIMEOUT_MS, traceHeaders: this.#options.traceHeaders, authorization: this.#options.authorization }
    try {
      await this.#send('tasks/cancel', {}, options)
      this.#caller.logger.debug({ taskId: this.#taskId }, 'MCP task cancelled: its call ended first')
    } catch (err) {
      this.#caller.logger.warn({ taskId: this.#taskId, err: messageOf(err) }, 'MCP task could not be cancelled')
    }
  }
}

function isTerminal (task: TaskState): boolean {
  return task.status === 'completed' || task.status === 'failed' || task.status === 'cancelled'
}

/** A failed task's JSON-RPC error in one line. */
function describeError (error: unknown): string {
  if (!isRecord(error)) return 'the task failed without an error'
  const message = typeof error.message === 'string' && error.message !== '' ? error.message : 'no message'
  return typeof error.code === 'number' ? `${message} (JSON-RPC error ${error.code})` : message
}
