// MCP Tasks (the extension `io.modelcontextprotocol/tasks`, SEP-2663) at /mcp in 2026-07-28: a
// client that declares the extension on a tools/call may be answered with a task handle instead of
// the result, when the call has not ended within mcp.taskAfterMs; it then polls `tasks/get`, answers
// questions with `tasks/update` and stops the call with `tasks/cancel`. A task is a detached call
// (src/calls): the same record as REST's /calls/:id, on a book every replica reads, belonging to the
// caller that made it (another caller's task reads as unknown).
import { ProtocolError, ProtocolErrorCode, type ClientCapabilities } from '@modelcontextprotocol/server'
import type { FastifyInstance } from 'fastify'
import type { Caller } from '../access/caller.ts'
import { isTerminal, type CallView } from '../calls/call-record.ts'
import type { Asker } from '../calls/question-relay.ts'
import type { Dispatched } from '../dispatch/call/outcome.ts'
import type { InputResponses, ToolProgress } from '../registry/types.ts'
import { isRecord } from '../shared/objects.ts'
import { ownerOf } from './owner.ts'
import { checkAnswerable, type McpTurn } from './questions.ts'
import { taskOf } from './task-view.ts'

export interface TaskRequest {
  readonly method: 'tasks/get' | 'tasks/update' | 'tasks/cancel'
  readonly taskId: string
  readonly inputResponses?: InputResponses
}

const TASK_METHODS: ReadonlySet<string> = new Set(['tasks/get', 'tasks/update', 'tasks/cancel'])

/** One of the extension's requests, read; an Error (-32602) naming what is wrong; undefined for any other method. */
export function taskRequestOf (message: { method: string, params?: Record<string, unknown> }): TaskRequest | Error | undefined {
  if (!TASK_METHODS.has(message.method)) return undefined
  const params = message.params ?? {}
  if (typeof params.taskId !== 'string' || params.taskId === '') return new ProtocolError(ProtocolErrorCode.InvalidParams, `${message.method}: params.taskId must be the task's id (a string)`)
  if (message.method === 'tasks/update' && !isRecord(params.inputResponses)) {
    return new ProtocolError(ProtocolErrorCode.InvalidParams, 'tasks/update: params.inputResponses must be an object of answers keyed as the task\'s inputRequests')
  }
  return { method: message.method as TaskRequest['method'], taskId: params.taskId, inputResponses: params.inputResponses as InputResponses | undefined }
}

/** The three methods of the extension for `caller`: the result, or undefined for a task it does not have. */
export async function answerTask (app: FastifyInstance, caller: Caller, request: TaskRequest): Promise<Record<string, unknown> | undefined> {
  const book = app.detachedCalls
  const owner = ownerOf(caller)
  switch (request.method) {
    case 'tasks/get': {
      const view = await book.get(owner, request.taskId)
      return view === undefined ? undefined : { ...taskOf(view) }
    }
    case 'tasks/update': {
      const view = await book.get(owner, request.taskId)
      if (view === undefined) return undefined
      // SEP-2663: answers to keys not outstanding (never asked, answered already) are ignored; those
      // to the questions waiting are checked against them, a refusal naming the field (-32602).
      const waiting = view.inputRequests ?? {}
      const answers = Object.fromEntries(Object.entries(request.inputResponses ?? {}).filter(([key]) => Object.hasOwn(waiting, key)))
      if (Object.keys(answers).length > 0) await book.answer(owner, request.taskId, answers)
      return {}
    }
    case 'tasks/cancel':
      return await book.cancel(owner, request.taskId) === undefined ? undefined : {}
  }
}

/**
 * Starts a tools/call as a task (the client declared the extension): recorded first, so that a
 * tasks/get anywhere finds it, then run; answered with its result when it ends within
 * mcp.taskAfterMs, else with the handle to poll.
 */
export async function startTask (
  app: FastifyInstance,
  caller: Caller,
  call: { name: string, capabilities?: ClientCapabilities },
  run: (signal: AbortSignal, ask: Asker, onProgress?: (update: ToolProgress) => void) => Promise<Dispatched>
): Promise<McpTurn> {
  const book = app.detachedCalls
  const owner = ownerOf(caller)
  const started = await book.start({ owner, tool: call.name }, async (held) => {
    const asked: Asker = async (requests, signal) => {
      checkAnswerable(call.name, requests, call.capabilities)
      return await held.ask(requests, signal)
    }
    // SEP-2663: no progress notifications for a task; its progress is its statusMessage.
    const { outcome, httpStatus } = await run(held.signal, asked, held.progress)
    return { status: httpStatus, payload: outcome }
  })
  const deadline = Date.now() + app.gateway.config.mcp.taskAfterMs
  let view: CallView | undefined = started
  while (view !== undefined && !isTerminal(view.status) && view.status !== 'input_required' && Date.now() < deadline) {
    view = await book.wait(owner, started.callId, deadline - Date.now(), view.updatedAt)
  }
  view ??= started
  const task = taskOf(view)
  if (task.status === 'completed' && task.result !== undefined) return { kind: 'result', result: task.result }
  const { inputRequests, result, error, ...handle } = task
  return { kind: 'task', task: handle }
}
