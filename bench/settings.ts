// The benchmark's settings, read from the environment once: a bad value fails before anything starts.

function positiveNumber (name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number (got ${JSON.stringify(raw)})`)
  return value
}

/** Measured seconds per scenario, split over the rounds. */
export const DURATION_S = positiveNumber('BENCH_DURATION', 10)
export const WARMUP_S = positiveNumber('BENCH_WARMUP', 2)
// Short alternating rounds pair each gateway measurement with a baseline taken seconds before it:
// on a shared machine the load drifts, and a ratio of two measurements far apart carries that drift.
export const ROUNDS = Math.floor(positiveNumber('BENCH_ROUNDS', 3))
// Each trial starts every server afresh: one process can settle faster or slower than the next
// (JIT and GC decisions, where the scheduler puts it), by ±10 % for the same code on this machine.
export const TRIALS = Math.floor(positiveNumber('BENCH_TRIALS', 3))
export const CONNECTIONS = Math.floor(positiveNumber('BENCH_CONNECTIONS', 10))
export const LOG_LEVEL = process.env.LOG_LEVEL ?? 'warn'
/** A folder for V8 CPU profiles of the server children (`--cpu-prof`); unset = no profiling. */
export const PROFILE_DIR = process.env.BENCH_PROFILE_DIR

/** The scenario groups, each a gateway path with its baseline(s): echo (a, b), definitions (c0, c, c'), mcp-call (d0, d, b'), mcp-list (e0, e). */
export const SCENARIO_GROUPS = ['echo', 'definitions', 'mcp-call', 'mcp-list'] as const
export type ScenarioGroup = typeof SCENARIO_GROUPS[number]

function groupList (name: string): ScenarioGroup[] {
  const raw = process.env[name]
  if (raw === undefined || raw.trim() === '') return [...SCENARIO_GROUPS]
  const groups = raw.split(',').map((group) => group.trim()).filter((group) => group !== '')
  const unknown = groups.filter((group) => !(SCENARIO_GROUPS as readonly string[]).includes(group))
  if (unknown.length > 0 || groups.length === 0) throw new Error(`${name}: unknown group(s) ${JSON.stringify(unknown)}; valid: ${SCENARIO_GROUPS.join(', ')} (comma-separated; unset = all)`)
  return groups as ScenarioGroup[]
}

/** The groups to run (BENCH_SCENARIOS, comma-separated); unset = all of them. */
export const GROUPS = groupList('BENCH_SCENARIOS')
