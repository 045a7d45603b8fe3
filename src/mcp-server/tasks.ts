// MCP Tasks (the extension `io.modelcontextprotocol/tasks`, SEP-2663) at /mcp in 2026-07-28: a
// client that declares the extension on a tools/call may be answered with a task handle instead of
// the result, when the call has not ended within mcp.taskAfterMs; it then polls `tasks/get`, answers
// questions with `tasks/update` and stops the call with `tasks/cancel`. A task is a detached call
// (src/calls): the same record as REST's /calls/:id, on a book every replica reads, belonging to the
// caller that made it (another caller's task reads as unknown).
import { ProtocolError, ProtocolErrorCode, type ClientCapabilities } from '@modelcontextprotocol/server'
import type { FastifyInstance } from 'fastify'
import type { Caller } from '../access/caller.ts'
import type { HeldCall } from '../calls/call-record.ts'
import { follow, type Asker } from '../calls/question-relay.ts'
import type { Dispatched } from '../dispatch/call/outcome.ts'
import type { InputResponses, ToolProgress } from '../registry/types.ts'
import { isRecord } from '../shared/objects.ts'
import { ownerOf } from './owner.ts'
import { checkAnswerable, type McpTurn } from './questions.ts'
import { callResultOf } from './call-result.ts'
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
 * Runs a tools/call that may become a task (the client declared the extension). It runs as a plain
 * call first: answered in the request when it ends within mcp.taskAfterMs, its progress sent on the
 * request's stream, its connection closing cancels it. At mcp.taskAfterMs, or at its first question,
 * it enters the book (recorded before the handle goes out, so a tasks/get anywhere finds it), no
 * longer listens to its connection, and is answered with the handle to poll; its progress is then
 * the task's statusMessage (SEP-2663: no progress notifications for a task).
 */
export async function startTask (
  app: FastifyInstance,
  caller: Caller,
  call: { name: string, capabilities?: ClientCapabilities, signal?: AbortSignal, onProgress?: (update: ToolProgress) => void },
  run: (signal: AbortSignal, ask: Asker, onProgress?: (update: ToolProgress) => void) => Promise<Dispatched>
): Promise<McpTurn> {
  const book = app.detachedCalls
  const owner = ownerOf(caller)
  const controller = new AbortController()
  const release = follow(call.signal, controller)
  let held: HeldCall | undefined
  let adopted: Promise<HeldCall> | undefined
  let lastProgress: ToolProgress | undefined
  const becomeTask = async (): Promise<HeldCall> => {
    adopted ??= book.adopt({ owner, tool: call.name }, (reason) => { controller.abort(reason) }).then((task) => {
      held = task
      release()
      if (lastProgress !== undefined) task.progress(lastProgress)
      return task
    })
    return await adopted
  }
  const handle = Promise.withResolvers<McpTurn>()
  const handOut = (): void => {
    becomeTask()
      .then(async (task) => await book.get(owner, task.callId))
      .then((view) => {
        if (view === undefined) return
        const { inputRequests, result, error, ...task } = taskOf(view)
        handle.resolve({ kind: 'task', task })
      }, (err: unknown) => {
        // No room in the book (the caller's limit of calls, the store down): the call stays a plain
        // one, answered in its request when it ends.
        caller.logger.debug({ err, tool: call.name }, 'a call could not become a task; it is answered when it ends')
      })
  }
  const ask: Asker = async (requests, signal) => {
    checkAnswerable(call.name, requests, call.capabilities)
    const task = await becomeTask()
    const answered = task.ask(requests, signal)
    handOut()
    return await answered
  }
  const onProgress = (update: ToolProgress): void => {
    lastProgress = update
    if (held === undefined) call.onProgress?.(update)
    else held.progress(update)
  }
  const timer = setTimeout(handOut, app.gateway.config.mcp.taskAfterMs)
  const finished = run(controller.signal, ask, onProgress).then(async (answer): Promise<McpTurn> => {
    clearTimeout(timer)
    release()
    const task = adopted === undefined ? undefined : await adopted.catch(() => undefined)
    await task?.settle({ status: answer.httpStatus, payload: answer.outcome })
    return { kind: 'result', result: callResultOf(answer) }
  })
  return await Promise.race([finished, handle.promise])
}
