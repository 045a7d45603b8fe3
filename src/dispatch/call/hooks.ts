// Plugin hooks around a tool call. pre_tool_call may veto a call, post_tool_call observes its
// outcome, transform_tool_result may replace the result. Hooks run in registration order; a hook
// that throws is logged and ignored, so one faulty plugin never breaks a call.
import type { Logger } from 'pino'
import { InvalidToolError } from '../../shared/errors.ts'
import type { CallStatus, DispatchStatus } from './outcome.ts'

export interface PreToolCallEvent { tool: string, args: Record<string, unknown>, callId: string, sessionId?: string }
/**
 * Every call, including those to unknown (`not_found`) or unavailable tools, so an audit log misses
 * nothing. A blocked call says which hook owner blocked it and why, with a duration of 0 (the tool
 * never ran).
 */
export interface PostToolCallEvent extends PreToolCallEvent {
  result: string
  durationMs: number
  status: DispatchStatus
  blocked?: { by: string, reason: string }
  /** On every failure: what kind (the GW_ERR_* code, or a finer kind such as invalid_result_type)... */
  error_type?: string
  /** ...and why, as the envelope's error.message says. */
  error_message?: string
}
export interface TransformToolResultEvent extends PreToolCallEvent { result: string, durationMs: number, status: CallStatus }

/** Returning `{ action: 'block', message }` vetoes the call; anything else lets it through. */
export type PreToolCallHook = (event: PreToolCallEvent) => unknown
export type PostToolCallHook = (event: PostToolCallEvent) => unknown
/** Returning a string replaces the result; anything else leaves it. */
export type TransformToolResultHook = (event: TransformToolResultEvent) => unknown

interface HookTypes {
  pre_tool_call: PreToolCallHook
  post_tool_call: PostToolCallHook
  transform_tool_result: TransformToolResultHook
}
export type HookName = keyof HookTypes
export const HOOK_NAMES: readonly HookName[] = Object.freeze(['pre_tool_call', 'post_tool_call', 'transform_tool_result'])

interface Registered<F> { fn: F, owner: string }

export class HookRegistry {
  readonly #hooks: { [K in HookName]: Array<Registered<HookTypes[K]>> } = {
    pre_tool_call: [],
    post_tool_call: [],
    transform_tool_result: []
  }

  /** Adds a hook; an unknown name is an error naming the valid ones. */
  add<K extends HookName> (name: K, fn: HookTypes[K], owner = 'anonymous'): void {
    if (!HOOK_NAMES.includes(name)) {
      throw new InvalidToolError(`unknown hook "${String(name)}"; valid hooks: ${HOOK_NAMES.join(', ')}`)
    }
    if (typeof fn !== 'function') throw new InvalidToolError(`hook "${name}" from ${owner} must be a function`)
    this.#hooks[name].push({ fn, owner })
  }

  /** Removes every hook `owner` added (a plugin that failed halfway through loading); returns how many. */
  removeOwner (owner: string): number {
    let removed = 0
    for (const name of HOOK_NAMES) {
      const kept = this.#hooks[name].filter((hook) => hook.owner !== owner)
      removed += this.#hooks[name].length - kept.length
      this.#hooks[name] = kept as never
    }
    return removed
  }

  has (name: HookName): boolean {
    return this.#hooks[name].length > 0
  }

  /** The first valid block directive, or undefined to let the call through. */
  async runPre (event: PreToolCallEvent, logger: Logger): Promise<{ message: string, owner: string } | undefined> {
    for (const { fn, owner } of this.#hooks.pre_tool_call) {
      const directive = await this.#safely(() => fn(event), 'pre_tool_call', owner, logger)
      if (isBlockDirective(directive)) return { message: directive.message, owner }
    }
    return undefined
  }

  async runPost (event: PostToolCallEvent, logger: Logger): Promise<void> {
    for (const { fn, owner } of this.#hooks.post_tool_call) {
      await this.#safely(() => fn(event), 'post_tool_call', owner, logger)
    }
  }

  /** The first string a transform hook returns replaces the result. */
  async runTransform (event: TransformToolResultEvent, logger: Logger): Promise<string | undefined> {
    for (const { fn, owner } of this.#hooks.transform_tool_result) {
      const replaced = await this.#safely(() => fn(event), 'transform_tool_result', owner, logger)
      if (typeof replaced === 'string') return replaced
    }
    return undefined
  }

  async #safely (call: () => unknown, hook: HookName, owner: string, logger: Logger): Promise<unknown> {
    try {
      return await call()
    } catch (err) {
      logger.error({ err, hook, owner }, 'hook threw; ignored')
      return undefined
    }
  }
}

/** `{ action: 'block', message: <non-empty string> }`; anything else is not a directive. */
function isBlockDirective (value: unknown): value is { action: 'block', message: string } {
  if (typeof value !== 'object' || value === null) return false
  const { action, message } = value as { action?: unknown, message?: unknown }
  return action === 'block' && typeof message === 'string' && message.length > 0
}
