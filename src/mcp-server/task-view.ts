// A detached call (src/calls) as SEP-2663 shows a task: its status in the extension's words, its
// questions while it waits, its result or error once it ended.
import type { CallToolResult } from '@modelcontextprotocol/server'
import type { CallView } from '../calls/call-record.ts'
import type { Dispatched, DispatchOutcome } from '../dispatch/call/outcome.ts'
import type { InputRequests, ToolProgress } from '../registry/types.ts'
import { isRecord } from '../shared/objects.ts'
import { callResultOf } from './call-result.ts'
import { TASKS_EXTENSION } from './modern-revision.ts'

/** A client polls no more often than this (the spec's suggested interval). */
const POLL_INTERVAL_MS = 1_000

/** Whether the request's client capabilities declare the Tasks extension. */
export function declaresTasks (capabilities: unknown): boolean {
  return isRecord(capabilities) && isRecord(capabilities.extensions) && isRecord(capabilities.extensions[TASKS_EXTENSION])
}

type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled'

/** A JSON-RPC error as a task's `error`. */
interface TaskError { code: number, message: string }

/** SEP-2663's Task: what a CreateTaskResult carries. */
export interface Task {
  taskId: string
  status: TaskStatus
  statusMessage?: string
  createdAt: string
  lastUpdatedAt: string
  ttlMs: number | null
  pollIntervalMs: number
}

/** SEP-2663's DetailedTask: the task, with its questions, result or error as its status has them. */
export interface DetailedTask extends Task {
  inputRequests?: InputRequests
  result?: CallToolResult
  error?: TaskError
}

function statusMessageOf (progress: ToolProgress | undefined): string | undefined {
  if (progress === undefined) return undefined
  if (typeof progress.message === 'string' && progress.message !== '') return progress.message
  return progress.total === undefined ? `progress ${progress.progress}` : `progress ${progress.progress} of ${progress.total}`
}

/** A task as SEP-2663 shows it, from the call's record. */
export function taskOf (view: CallView): DetailedTask {
  const base = {
    taskId: view.callId,
    createdAt: view.createdAt,
    lastUpdatedAt: view.updatedAt,
    // Counted from creation, as the spec has it: the record is forgotten at expiresAt.
    ttlMs: Math.max(0, Date.parse(view.expiresAt) - Date.parse(view.createdAt)),
    pollIntervalMs: POLL_INTERVAL_MS
  }
  switch (view.status) {
    case 'pending_approval':
      return { ...base, status: 'working', statusMessage: `waiting for a person to approve the call (approval ${view.approvalId ?? '?'})` }
    case 'running': {
      const statusMessage = statusMessageOf(view.progress)
      return statusMessage === undefined ? { ...base, status: 'working' } : { ...base, status: 'working', statusMessage }
    }
    case 'input_required':
      return { ...base, status: 'input_required', inputRequests: view.inputRequests ?? {} }
    case 'cancelled':
      return { ...base, status: 'cancelled', statusMessage: 'the call was cancelled' }
    case 'lost':
      return { ...base, status: 'failed', statusMessage: view.error, error: { code: -32603, message: view.error ?? 'the call was lost' } }
    case 'completed': {
      const answer = view.answer
      const outcome = answer?.payload as DispatchOutcome | undefined
      if (answer === undefined || outcome === undefined) return { ...base, status: 'failed', error: { code: -32603, message: 'the call ended without an answer' } }
      try {
        // A tool that does not exist for the caller is the protocol's error, as a plain tools/call answers it.
        return { ...base, status: 'completed', result: callResultOf({ outcome, httpStatus: answer.status } satisfies Dispatched) }
      } catch (err) {
        return { ...base, status: 'failed', error: { code: -32602, message: err instanceof Error ? err.message : String(err) } }
      }
    }
  }
}
