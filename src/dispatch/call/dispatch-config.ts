// What the dispatcher reads of the gateway's configuration: its limits and the operator's per-tool
// overrides. The gateway's configuration has this shape (config.dispatch, config.tools); a reload
// swaps that configuration whole, and a call keeps the one it started with from start to end.
import { DEFAULT_MAX_MEDIA_BYTES } from './media.ts'

export interface DispatchLimits {
  /** Deadline of a tool that sets none. */
  defaultTimeoutMs: number
  /** Ceiling for a per-call timeout override. */
  maxTimeoutMs: number
  /** Ceiling for a per-call result-size override. */
  maxResultChars: number
  /** Bytes of images and audio one call may return; past it, items are dropped with a note. */
  maxMediaBytes: number
}

/** An operator's override of what a tool declared. */
export interface ToolOverride {
  timeoutMs?: number
  maxResultSizeChars?: number
}

export interface DispatchConfig {
  readonly dispatch: Readonly<DispatchLimits>
  /** Per-tool overrides by tool name, applied over what each tool declared. */
  readonly tools: Readonly<Record<string, Readonly<ToolOverride>>>
}

export const DEFAULT_DISPATCH_LIMITS: Readonly<DispatchLimits> = Object.freeze({
  defaultTimeoutMs: 60_000,
  maxTimeoutMs: 600_000,
  maxResultChars: 1_000_000,
  maxMediaBytes: DEFAULT_MAX_MEDIA_BYTES
})

/** The configuration of a dispatcher given none: the default limits, no overrides. */
export const DEFAULT_DISPATCH_CONFIG: DispatchConfig = Object.freeze({ dispatch: DEFAULT_DISPATCH_LIMITS, tools: Object.freeze({}) })
