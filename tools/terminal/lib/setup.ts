// What a command needs before it can start, shared by the availability check (GET /tools) and every
// call: who it runs as, its confinement and its limits, or why no command may run.
import type { ToolConfig } from '../../../src/registry/index.ts'
import { resolveCommandUser, type CommandUser } from './command-user.ts'
import { findPrlimit, limitsArgv, limitsCaveat } from './limits.ts'
import { resolveConfinement, type Confinement } from './sandbox.ts'

const NO_LIMITS_REASON = 'per-command limits (terminal.limits) cannot be set: prlimit (util-linux) is not installed; install it, or set terminal.limits.required: false to run commands without them'

/**
 * The prlimit prefix of every command, its file size cut to `roomBytes` (what the workspace quota
 * leaves); undefined when none can be had and the operator allows that; `refused`: why no command may run.
 */
export async function commandLimits (config: ToolConfig, roomBytes: number): Promise<string[] | undefined | { refused: string }> {
  const prlimit = await findPrlimit()
  if (prlimit !== undefined) return limitsArgv(prlimit, { ...config.terminal.limits, fileSizeBytes: Math.min(config.terminal.limits.fileSizeBytes, roomBytes) })
  return config.terminal.limits.required ? { refused: NO_LIMITS_REASON } : undefined
}

export interface Setup { user: CommandUser, confinement: Exclude<Confinement, { kind: 'unavailable' }> }

/** Who commands run as and how they are confined; a string: why no command may run. */
export async function setupOf (config: ToolConfig): Promise<Setup | string> {
  const user = await resolveCommandUser(config.terminal.user)
  if (user.kind === 'unavailable') return user.reason
  const confinement = await resolveConfinement(config.terminal.sandbox, user.kind === 'switch' ? user.argv : [])
  if (confinement.kind === 'unavailable') return confinement.reason
  return { user, confinement }
}

/**
 * Whether commands can run, for GET /tools. Available but unconfined (or as root, or with a limit
 * that does not hold) is still available: the reason tells operators what it means.
 */
export async function terminalAvailability (config: ToolConfig): Promise<true | { available: boolean, reason: string }> {
  const setup = await setupOf(config)
  if (typeof setup === 'string') return { available: false, reason: setup }
  const limits = await commandLimits(config, Infinity)
  if (limits !== undefined && !Array.isArray(limits)) return { available: false, reason: limits.refused }
  const notes = [
    ...(setup.confinement.kind === 'none' ? [setup.confinement.note] : []),
    ...(setup.user.kind === 'root' ? [setup.user.note] : []),
    ...(limits === undefined ? ['commands run without per-command limits (prlimit is not installed, terminal.limits.required is false)'] : []),
    ...[limitsCaveat(setup.user.kind === 'root')].filter((note) => note !== undefined)
  ]
  return notes.length === 0 ? true : { available: true, reason: notes.join('; ') }
}
