// What a dispatch returns: the content for the model plus the facts an HTTP layer or an operator
// needs (status, error code, truncation, duration). Every status maps to one GW_ERR_* code.
import {
  BlockedError, CancelledError, InvalidArgumentsError, TimeoutError, ToolFailedError, ToolNotFoundError, ToolUnavailableError
} from '../errors.ts'
import type { CallStatus } from './hooks.ts'

export type DispatchStatus = CallStatus | 'unavailable' | 'not_found'

export interface DispatchOutcome {
  tool: string
  callId: string
  ok: boolean
  status: DispatchStatus
  /** The exact string to put in the tool message for the model, also on errors. */
  content: string
  truncated: boolean
  originalLength: number
  durationMs: number
  /** Only when ok is false. */
  error?: { code: string, message: string }
  /** The HTTP status the contract gives this outcome (API.md). */
  httpStatus: number
}

/** What the steps of the pipeline pass back up before the outcome is finalised. */
export interface StepResult {
  status: DispatchStatus
  content: string
  /** Why it failed, for `error.message` (content carries the model's copy). */
  message?: string
  truncated?: boolean
  originalLength?: number
}

function codeOf (ErrorClass: new (message: string) => { code: string, statusCode?: number }): { code: string, httpStatus: number } {
  const sample = new ErrorClass('')
  return { code: sample.code, httpStatus: sample.statusCode ?? 500 }
}

const FAILURES: Record<Exclude<DispatchStatus, 'ok'>, { code: string, httpStatus: number }> = {
  error: codeOf(ToolFailedError),
  invalid: codeOf(InvalidArgumentsError),
  blocked: codeOf(BlockedError),
  not_found: codeOf(ToolNotFoundError),
  unavailable: codeOf(ToolUnavailableError),
  timeout: codeOf(TimeoutError),
  cancelled: codeOf(CancelledError)
}

export function finalizeOutcome (tool: string, callId: string, result: StepResult, durationMs: number): DispatchOutcome {
  const outcome: DispatchOutcome = {
    tool,
    callId,
    ok: result.status === 'ok',
    status: result.status,
    content: result.content,
    truncated: result.truncated ?? false,
    originalLength: result.originalLength ?? result.content.length,
    durationMs,
    httpStatus: 200
  }
  if (result.status !== 'ok') {
    const failure = FAILURES[result.status]
    outcome.error = { code: failure.code, message: result.message ?? errorMessageOf(result.content) }
    outcome.httpStatus = failure.httpStatus
  }
  return outcome
}

/** The `error` field of a `{"error": ...}` result, or the content itself. */
function errorMessageOf (content: string): string {
  try {
    const parsed = JSON.parse(content) as { error?: unknown }
    if (typeof parsed?.error === 'string') return parsed.error
  } catch {}
  return Array.from(content).slice(0, 2000).join('')
}
