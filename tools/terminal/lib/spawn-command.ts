// Starts a shell command as the leader of its own process group, captures its output into a
// bounded buffer and reports when it is over. "Over" means the whole group: when the shell exits,
// whatever it left running is killed too, so no call leaves processes behind. In the sandbox the
// process spawned is bwrap, and the sandbox dying with it is what ends everything inside; without
// it, processes that left the group are found by their environment marker (escapees.ts).
import { spawn, type ChildProcessByStdio } from 'node:child_process'
import { once } from 'node:events'
import type { Readable } from 'node:stream'
import { killMarked, MARKER_VARIABLE } from './escapees.ts'
import { CappedOutput } from './output-buffer.ts'
import { DEFAULT_GRACE_MS, isGroupAlive, killGroup, type KillGroupResult } from './process-group.ts'
import { killSandbox } from './sandbox-kill.ts'

// After the shell exits, how long its pipes may stay open: a process that left the group
// (setsid, daemonised) can hold them forever, and the call must still end.
const DRAIN_MS = 1000

export interface SpawnOptions {
  command: string
  cwd: string
  env: Record<string, string>
  maxOutputChars: number
  /** Between SIGTERM and SIGKILL when the group is killed. */
  graceMs?: number
  /** The bwrap command line the shell runs under (sandbox.ts), ending with `--`; unconfined when absent. */
  sandbox?: readonly string[]
  /** Run as root before the limits: the hand-over of the workspace to the command's user (command-user.ts), ending with the command to exec. */
  handOver?: readonly string[]
  /** The prlimit command line (limits.ts) the shell runs under, inside the sandbox, ending with `--`. */
  limits?: readonly string[]
  /** The setpriv command line (command-user.ts) switching to the command's user, last before the shell, ending with `--`. */
  user?: readonly string[]
  /** Unconfined only: a value unique to this command, set as MARKER_VARIABLE so that what leaves the group is found at the end. */
  marker?: string
}

export interface CommandExit {
  /** null when a signal ended the shell. */
  exitCode: number | null
  signal: NodeJS.Signals | null
  /** The shell exited but left processes in its group, which were then killed. */
  leftoversKilled: boolean
  /** Something outside the group (it called setsid) still held the output pipes; they were closed. */
  pipesHeld: boolean
  /** Processes that had left the group (setsid, daemons) and were found by the marker and killed. */
  escapedKilled: number
}

export interface SpawnedCommand {
  /** Also the process group id. */
  readonly pid: number
  readonly output: CappedOutput
  /** Resolves when the shell has exited, its group is gone and its output is read; never rejects. */
  readonly done: Promise<CommandExit>
  /** Whether `done` has resolved. */
  readonly finished: boolean
  /** Kills the whole group; resolves when it is gone. Idempotent; a no-op once finished. */
  kill: () => Promise<void>
}

/** The shell just spawned, with every listener on: nothing it emits before the first await is lost. */
interface Shell {
  child: ChildProcessByStdio<null, Readable, Readable>
  /** Both output pipes closed; never rejects. */
  closed: Promise<void>
  /** Rejects only when the spawn fails. */
  exited: Promise<[number | null, NodeJS.Signals | null]>
  output: CappedOutput
}

function startShell (options: SpawnOptions): Shell {
  // detached: the child calls setsid(), so it leads a new process group whose id is its pid, and
  // one signal to -pid reaches everything it starts (unless something calls setsid itself).
  const [file, ...args] = [
    ...(options.sandbox ?? []), ...(options.handOver ?? []), ...(options.limits ?? []), ...(options.user ?? []),
    '/bin/sh', '-c', options.command
  ]
  const env = options.marker === undefined ? options.env : { ...options.env, [MARKER_VARIABLE]: options.marker }
  const child = spawn(file, args, {
    cwd: options.cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  // Listeners go on before the first await so that no event can slip past them.
  const closed = once(child, 'close').then(() => {}, () => {})
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
  exited.catch(() => {}) // rejects only when the spawn fails, which spawnCommand reports
  const output = new CappedOutput(options.maxOutputChars)
  // One buffer for both streams: the model reads them interleaved, as a terminal shows them.
  for (const stream of [child.stdout, child.stderr]) {
    stream.setEncoding('utf8')
    stream.on('data', (text: string) => output.write(text))
  }
  return { child, closed, exited, output }
}

/** The kill of one group, shared: a kill under way is awaited by every caller and by the reaping, never repeated. */
class GroupKiller {
  readonly #pid: number
  readonly #graceMs: number
  readonly #killer: (pid: number, graceMs: number) => Promise<KillGroupResult>
  #killing: Promise<void> | undefined
  /** The command is over (group gone, output read): from then on a kill is a no-op. */
  finished = false

  constructor (pid: number, graceMs: number, sandboxed: boolean) {
    this.#pid = pid
    this.#graceMs = graceMs
    this.#killer = sandboxed ? killSandbox : killGroup
  }

  kill (): Promise<void> {
    if (this.finished) return Promise.resolve()
    this.#killing ??= this.#killer(this.#pid, this.#graceMs).then(() => {})
    return this.#killing
  }

  /** Once the shell has exited: kills what it left in its group, or waits for a kill already asked; true for leftovers. */
  async reap (): Promise<boolean> {
    if (this.#killing === undefined && await isGroupAlive(this.#pid)) {
      await this.kill()
      return true
    } else if (this.#killing !== undefined) {
      await this.#killing
    }
    return false
  }
}

/** Waits for the pipes to close; after DRAIN_MS closes them from this side. True when they closed on their own. */
async function drainPipes (shell: Shell): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const drained = await Promise.race([
    shell.closed.then(() => true),
    new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), DRAIN_MS) })
  ])
  clearTimeout(timer)
  if (!drained) {
    shell.child.stdout.destroy()
    shell.child.stderr.destroy()
  }
  return drained
}

/** Spawns `/bin/sh -c command`; rejects when the spawn itself fails (missing shell, bad cwd). */
export async function spawnCommand (options: SpawnOptions): Promise<SpawnedCommand> {
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS
  const shell = startShell(options)
  try {
    await once(shell.child, 'spawn')
  } catch (err) {
    shell.child.stdout.destroy()
    shell.child.stderr.destroy()
    throw err
  }
  const pid = shell.child.pid as number
  const killer = new GroupKiller(pid, graceMs, options.sandbox !== undefined)

  const done = (async (): Promise<CommandExit> => {
    const [exitCode, signal] = await shell.exited
    const leftoversKilled = await killer.reap()
    // Before draining: an escaped process holding the pipes closes them as it dies.
    const escapedKilled = options.marker === undefined ? 0 : await killMarked(options.marker)
    const drained = await drainPipes(shell)
    killer.finished = true
    return { exitCode, signal, leftoversKilled, pipesHeld: !drained, escapedKilled }
  })()

  return {
    pid,
    output: shell.output,
    done,
    get finished () { return killer.finished },
    kill: () => killer.kill()
  }
}
