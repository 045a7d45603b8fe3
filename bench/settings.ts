// The benchmark's settings, read from the environment once: a bad value fails before anything starts.

function positiveNumber (name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number (got ${JSON.stringify(raw)})`)
  return value
}

/** Measured seconds per scenario and side, split over the trials and rounds. */
export const DURATION_S = positiveNumber('BENCH_DURATION', 10)
export const WARMUP_S = positiveNumber('BENCH_WARMUP', 1.5)
// Short alternating rounds pair each gateway measurement with a floor taken seconds before it:
// on a shared machine the load drifts, and a ratio of two measurements far apart carries that drift.
export const ROUNDS = Math.floor(positiveNumber('BENCH_ROUNDS', 3))
// Each trial starts every server afresh: one process can settle faster or slower than the next
// (JIT and GC decisions, where the scheduler puts it), by ±10 % for the same code on this machine.
export const TRIALS = Math.floor(positiveNumber('BENCH_TRIALS', 3))
export const CONNECTIONS = Math.floor(positiveNumber('BENCH_CONNECTIONS', 32))
/** Start-ups timed per kind (built-ins, 1 000 tools, `npm start`); the median is reported. */
export const STARTS = Math.floor(positiveNumber('BENCH_STARTS', 5))
/** Wait after ready before reading a server's RSS "after start": discovery's leftovers settle. */
export const SETTLE_MS = positiveNumber('BENCH_SETTLE_MS', 1000)
/** Interval of the GET /healthz probe during the read_file loads. */
export const HEALTH_POLL_MS = positiveNumber('BENCH_HEALTH_POLL_MS', 100)
export const LOG_LEVEL = process.env.LOG_LEVEL ?? 'warn'
/** A folder for V8 CPU profiles of the servers (`--cpu-prof`), one sub-folder per server; unset = none. */
export const PROFILE_DIR = process.env.BENCH_PROFILE_DIR

/** The groups of scenarios; each dispatch or definitions scenario runs the gateway and its floor. */
export const SCENARIO_GROUPS = ['read', 'write', 'search', 'echo', 'batch', 'definitions', 'startup', 'mcp-call', 'mcp-list', 'shared'] as const
export type ScenarioGroup = typeof SCENARIO_GROUPS[number]
/**
 * Left out unless named: the MCP groups double the run's length for a path rarely hot; `shared`
 * (replicas' state in Redis) needs Debian's redis-server.
 */
const DEFAULT_GROUPS = SCENARIO_GROUPS.filter((group) => !group.startsWith('mcp-') && group !== 'shared')

function groupList (name: string): ScenarioGroup[] {
  const raw = process.env[name]
  if (raw === undefined || raw.trim() === '') return [...DEFAULT_GROUPS]
  const groups = raw.split(',').map((group) => group.trim()).filter((group) => group !== '')
  const unknown = groups.filter((group) => !(SCENARIO_GROUPS as readonly string[]).includes(group))
  if (unknown.length > 0 || groups.length === 0) throw new Error(`${name}: unknown group(s) ${JSON.stringify(unknown)}; valid: ${SCENARIO_GROUPS.join(', ')} (comma-separated; unset = all but the mcp-* ones and shared)`)
  return groups as ScenarioGroup[]
}

/** The groups to run (BENCH_SCENARIOS, comma-separated); unset = all but mcp-call, mcp-list and shared. */
export const GROUPS = groupList('BENCH_SCENARIOS')
