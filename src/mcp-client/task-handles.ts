// Task handles of the Tasks extension (SEP-2663, io.modelcontextprotocol/tasks) as the gateway
// receives them, and the task state read from them. The SDK 2.4 client knows no `resultType: "task"`:
// its 2026-07-28 codec refuses such an answer ("Unsupported result type") and keeps nothing of it.
// So answers are read on their way in, before the SDK: a result whose resultType is "task" is handed
// on as an error answer carrying the result, with which the SDK rejects the request, and which the
// call recognises by identity (only objects made here are recognised: a server cannot forge one by
// sending an error of that shape). Whether the handle was asked for is the call's to judge (a server
// must not send one to a request that did not declare the extension).
import { INTERNAL_ERROR, ProtocolError, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client'
import { isRecord } from '../shared/objects.ts'

/** The error data a task handle travels in through the SDK. */
interface Carried {
  readonly taskHandle: Record<string, unknown>
}

const carried = new WeakSet<object>()

/** Installed on a connected client's transport, outermost (it sees each message first). */
export function passTaskHandles (transport: Pick<Transport, 'onmessage'>): void {
  const dispatch = transport.onmessage
  if (dispatch === undefined) return
  transport.onmessage = (message, extra) => {
    const result = 'result' in message ? (message as { result?: unknown }).result : undefined
    if (!isRecord(result) || result.resultType !== 'task' || !('id' in message)) {
      dispatch(message, extra)
      return
    }
    const data: Carried = { taskHandle: result }
    carried.add(data)
    const error = { code: INTERNAL_ERROR, message: 'the server answered with a task handle (resultType "task")', data }
    dispatch({ jsonrpc: '2.0', id: message.id, error } as JSONRPCMessage, extra)
  }
}

/** The task handle an SDK request failed with, if that is what it was. */
export function taskHandleOf (err: unknown): Record<string, unknown> | undefined {
  if (!(err instanceof ProtocolError) || !isRecord(err.data) || !carried.has(err.data)) return undefined
  return (err.data as unknown as Carried).taskHandle
}

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled'

const STATUSES: ReadonlySet<string> = new Set<TaskStatus>(['working', 'input_required', 'completed', 'failed', 'cancelled'])

/** What the gateway reads of a Task (SEP-2663's DetailedTask), from a CreateTaskResult or a tasks/get answer. */
export interface TaskState {
  taskId: string
  status: TaskStatus
  statusMessage?: string
  pollIntervalMs?: number
  /** input_required: the questions outstanding. */
  inputRequests?: unknown
  /** completed: the tools/call result. */
  result?: unknown
  /** failed: the JSON-RPC error. */
  error?: unknown
}

/** Longest task id kept (it goes into every later request and into messages). */
const MAX_TASK_ID_CHARS = 1_000

/** The task state in `value`, or why it is none. `taskId` is what it must be once known. */
export function readTask (value: unknown, taskId?: string): TaskState | string {
  if (!isRecord(value)) return 'the task is not an object'
  if (typeof value.taskId !== 'string' || value.taskId === '' || value.taskId.length > MAX_TASK_ID_CHARS) return 'the task has no usable taskId'
  if (taskId !== undefined && value.taskId !== taskId) return `the answer is about task ${JSON.stringify(value.taskId.slice(0, 100))}, not ${JSON.stringify(taskId.slice(0, 100))}`
  if (typeof value.status !== 'string' || !STATUSES.has(value.status)) return `the task's status ${JSON.stringify(String(value.status).slice(0, 50))} is none of ${[...STATUSES].join(', ')}`
  const task: TaskState = { taskId: value.taskId, status: value.status as TaskStatus }
  if (typeof value.statusMessage === 'string') task.statusMessage = value.statusMessage
  if (typeof value.pollIntervalMs === 'number' && Number.isFinite(value.pollIntervalMs)) task.pollIntervalMs = value.pollIntervalMs
  if (value.inputRequests !== undefined) task.inputRequests = value.inputRequests
  if (value.result !== undefined) task.result = value.result
  if (value.error !== undefined) task.error = value.error
  return task
}
