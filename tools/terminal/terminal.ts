// The terminal toolset: `terminal` runs shell commands in the workspace, `process` manages the ones
// started in the background. One module for both because they share the app's process table.
// Commands run in a bubblewrap sandbox where one can be made (lib/sandbox.ts; README, "The terminal
// and its sandbox"), else unconfined, which GET /tools says; as terminal.user when the gateway is
// root (lib/command-user.ts); and what they write counts against the file tools' workspace quota.
import { randomUUID } from 'node:crypto'
import { relative } from 'node:path'
import { configOf, messageOf, registry, toolResult, toolError } from '../../src/registry/index.ts'
import type { CheckFn, ToolConfig, ToolContext } from '../../src/registry/index.ts'
import { commandEnvironment } from './lib/environment.ts'
import { ProcessTable } from './lib/process-table.ts'
import { describe, poll, unknownId } from './lib/process-views.ts'
import { handOverArgv } from './lib/command-user.ts'
import { measureAfter, roomLeft } from './lib/quota.ts'
import { sandboxArgv } from './lib/sandbox.ts'
import { commandLimits, setupOf, terminalAvailability } from './lib/setup.ts'
import { spawnCommand, type SpawnedCommand, type SpawnOptions } from './lib/spawn-command.ts'
import { resolveWorkdir, workspaceRealPath } from './lib/workdir.ts'
import { quotaOf } from '../file/lib/counted-write.ts'
import { workspaceOf } from '../file/lib/workspace.ts'
import type { Quota, WorkspaceUsage } from '../file/lib/workspace-usage.ts'

const DEFAULT_TIMEOUT_S = 60
const MAX_TIMEOUT_S = 600
const MAX_RUNNING = 16

// Discovery imports this module once per app, so this table belongs to one app: its background
// processes are not visible to, nor killed by, another app in the same process.
const table = new ProcessTable({ maxRunning: MAX_RUNNING })

const DISABLED_REASON = 'terminal tools are disabled: set GATEWAY_ENABLE_TERMINAL=true to enable them'

const checkTerminal: CheckFn = async (ctx) => {
  const config = configOf(ctx)
  if (!config.terminal.enabled) return { available: false, reason: DISABLED_REASON }
  return await terminalAvailability(config)
}

interface Prepared {
  config: ToolConfig
  root: string
  /** The file tools' count of the workspace, measured again after each command. */
  usage: WorkspaceUsage
  quota: Quota
  spawn: Omit<SpawnOptions, 'command'>
}

/** The checks shared by both modes; a string is the error to return. */
async function prepare (workdir: string | undefined, ctx: ToolContext): Promise<Prepared | string> {
  const config = configOf(ctx)
  // The dispatcher already refuses a disabled tool; this guards a caller that skips it.
  if (!config.terminal.enabled) return DISABLED_REASON
  if (table.disposed) return 'the gateway is shutting down; no new commands are started'
  let root: string
  try {
    root = await workspaceRealPath(config.workspaceRoot)
  } catch (err) {
    return `the workspace ${config.workspaceRoot} cannot be created or resolved: ${messageOf(err)}`
  }
  const resolved = await resolveWorkdir(root, workdir)
  if (!resolved.ok) return resolved.error
  const setup = await setupOf(config)
  if (typeof setup === 'string') return setup
  let usage: WorkspaceUsage
  try {
    usage = await (await workspaceOf(config.workspaceRoot)).usage
  } catch (err) {
    return `the workspace ${config.workspaceRoot} cannot be measured for its quota: ${messageOf(err)}`
  }
  const quota = quotaOf(config)
  const limits = await commandLimits(config, roomLeft(usage, quota))
  if (limits !== undefined && !Array.isArray(limits)) return limits.refused
  const { user, confinement } = setup
  const switching = user.kind === 'switch' ? user : undefined
  const spawn = {
    limits,
    ...(switching !== undefined && { user: switching.argv, handOver: handOverArgv(switching.uid, switching.gid, root) }),
    cwd: resolved.path,
    env: commandEnvironment(config.terminal.envAllowlist, process.env, root),
    maxOutputChars: config.terminal.maxOutputChars,
    ...(confinement.kind === 'bwrap'
      ? { sandbox: await sandboxArgv(confinement.bwrap, root, resolved.path, switching !== undefined) }
      : { marker: `${process.pid}-${randomUUID()}` })
  }
  return { config, root, usage, quota, spawn }
}

async function start (command: string, prepared: Prepared): Promise<SpawnedCommand | string> {
  try {
    return await spawnCommand({ command, ...prepared.spawn })
  } catch (err) {
    return `the command could not be started: ${messageOf(err)}`
  }
}

async function runForeground (command: string, timeoutS: number, prepared: Prepared, ctx: ToolContext): Promise<string> {
  if (ctx.signal.aborted) return toolError('the call was cancelled before the command started')
  const startedAt = Date.now()
  const proc = await start(command, prepared)
  if (typeof proc === 'string') return toolError(proc)
  if (!table.trackForeground(proc)) return toolError('the gateway is shutting down; the command was stopped')

  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    proc.kill().catch(() => {})
  }, timeoutS * 1000)
  // The dispatcher's deadline, the caller going away and shutdown all end up here.
  const onAbort = (): void => { proc.kill().catch(() => {}) }
  ctx.signal.addEventListener('abort', onAbort, { once: true })
  if (ctx.signal.aborted) onAbort()
  let exit
  try {
    exit = await proc.done
  } finally {
    clearTimeout(timer)
    ctx.signal.removeEventListener('abort', onAbort)
  }
  if (ctx.signal.aborted && !timedOut) return toolError('the command was stopped: the call was cancelled')

  const result: Record<string, unknown> = { output: proc.output.toString(), exit_code: exit.exitCode }
  if (exit.signal !== null) result.signal = exit.signal
  if (timedOut) {
    result.timed_out = true
    result.note = `The command ran past its ${timeoutS} s timeout and was killed with every process it started. ` +
      'Give a larger timeout (at most 600 s) or run it with background: true.'
  } else if (table.disposed) {
    result.note = 'The command was stopped because the gateway is shutting down.'
  } else if (exit.leftoversKilled) {
    result.note = 'The command left processes running when it ended; they were stopped. ' +
      'Start servers and other long-running programs with background: true.'
  }
  if (exit.escapedKilled > 0) {
    result.warning = `${exit.escapedKilled} process(es) started by the command left its process group (setsid, daemon) and kept running; they were stopped. ` +
      'Start long-running programs with background: true.'
  } else if (exit.pipesHeld) {
    result.warning = 'A process started by the command left its process group (setsid, daemon) and kept its output open; ' +
      'it may still be running and cannot be stopped by this tool.'
  }
  const quotaWarning = await measureAfter(prepared.usage, prepared.quota)
  if (quotaWarning !== undefined) result.quota_warning = quotaWarning
  if (proc.output.omittedChars > 0) result.truncated = true
  result.duration_ms = Date.now() - startedAt
  return toolResult(result)
}

async function runBackground (command: string, prepared: Prepared, owner: string | undefined): Promise<string> {
  const release = table.reserve()
  if (release === null) {
    const running = table.list(owner).filter((entry) => entry.status === 'running').map((entry) => entry.id)
    return toolError(`too many background processes: ${MAX_RUNNING} are running (${running.join(', ')}); ` +
      'stop one with process(action: "kill", id) first', { running })
  }
  let proc: SpawnedCommand | string
  try {
    proc = await start(command, prepared)
  } finally {
    release()
  }
  if (typeof proc === 'string') return toolError(proc)
  const started = proc
  // Counted when it ends; what it writes while it runs is only seen by the next measurement.
  started.done.then(async () => await measureAfter(prepared.usage, prepared.quota)).catch(() => {})
  const entry = table.addBackground(proc, command, relative(prepared.root, prepared.spawn.cwd) || '.', owner)
  if (entry === null) return toolError('the gateway is shutting down; the command was stopped')
  return toolResult({
    id: entry.id,
    pid: entry.pid,
    status: 'running',
    hint: `Read its output with process(action: "poll", id: "${entry.id}"); stop it with process(action: "kill", id: "${entry.id}").`
  })
}

registry.register({
  name: 'terminal',
  toolset: 'terminal',
  emoji: '💻',
  // Any command: it may delete files and, where the sandbox is not available, reach the network.
  annotations: { title: 'Run a shell command', readOnly: false, destructive: true, idempotent: false, openWorld: true },
  description: [
    'Run a shell command (/bin/sh -c) on the gateway machine and get back its output (stdout and stderr interleaved, in the order they arrived) and exit code.',
    'Use it to build, test, run scripts, use git, inspect the workspace.',
    'Runs in the workspace folder, or in `workdir`, a folder inside the workspace.',
    'No stdin and no terminal: interactive programs (editors, pagers, prompts, REPLs) cannot be used; pass flags such as -y or --no-pager.',
    `Timeout: ${DEFAULT_TIMEOUT_S} s unless you give \`timeout\` (at most ${MAX_TIMEOUT_S} s); then the command and every process it started are killed and the result says timed_out.`,
    'Output is capped: the first 40 % and the last 60 % are kept, with a marker saying how many characters were cut.',
    'The environment is minimal (PATH, locale and a few more; HOME is the workspace), so no credentials of the gateway are available.',
    'Commands usually run in a sandbox: no network access, the system read-only, only the workspace writable, /tmp private to each command.',
    'What a command writes counts against the workspace quota: a file is cut (the write fails with "File size limit exceeded") at the room left when the command started.',
    'Processes a command leaves running are stopped when it ends: start servers, watchers and other long-running commands with background: true and manage them with the `process` tool.',
    'A non-zero exit_code is reported in the result, not as an error.'
  ].join(' '),
  schema: {
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string', minLength: 1, description: 'The shell command line, run with /bin/sh -c (pipes, &&, redirections and globs work).' },
        background: {
          type: 'boolean',
          description: `Start the command in the background and return at once with its process id, for servers and long jobs; read its output and stop it with the \`process\` tool. At most ${MAX_RUNNING} run at once. Default false.`
        },
        timeout: {
          type: 'number',
          exclusiveMinimum: 0,
          maximum: MAX_TIMEOUT_S,
          description: `Seconds before the command is killed (default ${DEFAULT_TIMEOUT_S}, at most ${MAX_TIMEOUT_S}). Not used with background: true.`
        },
        workdir: { type: 'string', description: 'Folder to run in, relative to the workspace (default: the workspace root). Must stay inside the workspace.' }
      },
      required: ['command'],
      additionalProperties: false
    }
  },
  checkFn: checkTerminal,
  requiresEnv: ['GATEWAY_ENABLE_TERMINAL'],
  // The output is already capped by terminal.maxOutputChars; this only bounds JSON escaping on top.
  maxResultSizeChars: 1_000_000,
  // Above the longest command timeout plus the kill grace, so the command's own timeout fires first
  // and the model gets the output; a shorter per-call deadline still kills the group through ctx.signal.
  timeoutMs: (MAX_TIMEOUT_S + 10) * 1000,
  // Registered on this tool only; the table makes a second call harmless anyway.
  dispose: () => table.dispose(),
  handler: async (args, ctx) => {
    const { command, background = false, timeout = DEFAULT_TIMEOUT_S } = args
    const prepared = await prepare(args.workdir, ctx)
    if (typeof prepared === 'string') return toolError(prepared)
    if (background) return await runBackground(command, prepared, ctx.principal)
    return await runForeground(command, timeout, prepared, ctx)
  }
})

registry.register({
  name: 'process',
  toolset: 'terminal',
  emoji: '⚙️',
  // kill stops processes; poll moves the caller's read position, so a repeat answers differently.
  annotations: { title: 'Manage background processes', readOnly: false, destructive: true, idempotent: false, openWorld: false },
  description: [
    'Manage the commands started with terminal(background: true).',
    'action "list": every background process with its id, status (running, exited, killed) and exit code.',
    'action "poll": the output a process printed since your previous poll of it (the first poll returns everything kept), with its status and exit code;',
    'give `since` (a character offset, e.g. 0 for everything kept, or a previous next_since) to read from elsewhere.',
    'Output kept per process is capped like terminal output (first 40 %, last 60 %).',
    'action "kill": stop the process and every process it started; repeating it is harmless.',
    'Only the processes started with your API key are listed and reachable.',
    'Background processes end when the gateway shuts down.'
  ].join(' '),
  schema: {
    parameters: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['list', 'poll', 'kill'], description: 'What to do: list all background processes, poll one for output and status, or kill one.' },
        id: { type: 'string', description: 'The process id returned by terminal(background: true), e.g. "proc_1". Required for poll and kill.' },
        since: {
          type: 'integer',
          minimum: 0,
          description: 'poll only: character offset in the output to read from. Default: where your previous poll stopped. 0 re-reads all the kept output.'
        }
      },
      required: ['action'],
      additionalProperties: false
    }
  },
  checkFn: checkTerminal,
  requiresEnv: ['GATEWAY_ENABLE_TERMINAL'],
  maxResultSizeChars: 1_000_000,
  // A kill waits for SIGTERM, the grace and SIGKILL.
  timeoutMs: 15_000,
  handler: async (args, ctx) => {
    if (!configOf(ctx).terminal.enabled) return toolError(DISABLED_REASON)
    const { action, id } = args
    const owner = ctx.principal
    if (action === 'list') {
      const processes = table.list(owner).map(describe)
      return toolResult({ processes, running: table.runningCount, max_running: MAX_RUNNING })
    }
    if (id === undefined || id === '') {
      const known = table.ids(owner)
      return toolError(`action "${action}" needs an id; ${known.length > 0 ? `known ids: ${known.join(', ')}` : 'no background process has been started'}`, { known_ids: known })
    }
    const entry = table.get(id, owner)
    if (entry === undefined) return unknownId(id, table.ids(owner))
    if (action === 'poll') return poll(entry, args.since)
    const wasRunning = entry.status === 'running'
    await table.kill(entry)
    const result = describe(entry)
    if (!wasRunning) result.note = `the process had already ${entry.status === 'killed' ? 'been killed' : 'exited'}`
    return toolResult(result)
  }
})
