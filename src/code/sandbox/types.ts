// The sandbox engine's contract with its callers, and the messages between the pool (main thread)
// and a worker. Everything that crosses into or out of the VM is JSON text, never a host object.

export interface ScriptLimits {
  /** The VM's heap limit; the WebAssembly memory under it is bounded a little above this. */
  memoryBytes: number
  /** The VM's maximum stack size. */
  stackBytes: number
  /** Inner tool calls per execution; the next one rejects inside the script. */
  maxCalls: number
  /** Inner calls in flight at once; further calls wait their turn, in order. */
  maxConcurrentCalls: number
  /** The result's JSON plus the logs, in UTF-8 bytes. */
  maxOutputBytes: number
}

export type InnerCallAnswer = { ok: true, value: unknown } | { ok: false, message: string }

export interface RunScriptOptions {
  /** The body of an async function. */
  code: string
  /** The tools in scope: exactly these are the properties of `tools`. */
  toolNames: readonly string[]
  /** The execution's deadline, counted from the call to `run` (time spent queued included). */
  timeoutMs: number
  /** Cancels the execution (the caller went away). */
  signal?: AbortSignal
  limits: ScriptLimits
  /** Never rejects by contract; a rejection is answered to the script as a failed call anyway. */
  callTool: (name: string, args: unknown, signal: AbortSignal) => Promise<InnerCallAnswer>
}

export type ScriptFailureKind = 'syntax' | 'runtime' | 'timeout' | 'cancelled' | 'memory' | 'stack' | 'output' | 'not_json' | 'internal'

export type ScriptOutcome =
  | { ok: true, result: unknown, resultJson: string, logs: string[], calls: number }
  | { ok: false, kind: ScriptFailureKind, message: string, logs: string[], calls: number }

/** What the stop flag (an Int32 in a SharedArrayBuffer) holds: why the VM must stop now. */
export const STOP_NONE = 0
export const STOP_TIMEOUT = 1
export const STOP_CANCELLED = 2

/** Pool → worker. */
export type ToWorker =
  | {
    type: 'run'
    runId: number
    code: string
    toolNames: readonly string[]
    /** Epoch milliseconds; threads share the clock. */
    deadline: number
    timeoutMs: number
    limits: ScriptLimits
    stopFlag: SharedArrayBuffer
  }
  | { type: 'answer', runId: number, callId: number, ok: true, json: string }
  | { type: 'answer', runId: number, callId: number, ok: false, message: string }
  | { type: 'stop', runId: number }

/** What a worker reports at the end of a run; the pool adds `calls` and parses the result. */
export type WorkerOutcome =
  | { ok: true, resultJson: string, logs: string[] }
  | { ok: false, kind: ScriptFailureKind, message: string, logs: string[] }

/** Worker → pool. */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'call', runId: number, callId: number, name: string, argsJson: string }
  | { type: 'done', runId: number, outcome: WorkerOutcome }
