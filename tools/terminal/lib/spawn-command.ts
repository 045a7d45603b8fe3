// Starts a shell command as the leader of its own process group, captures its output into a
// bounded buffer and reports when it is over. "Over" means the whole group: when the shell exits,
// whatever it left running is killed too, so no call leaves processes behind.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { CappedOutput } from './output-buffer.ts'
import { DEFAULT_GRACE_MS, isGroupAlive, killGroup } from './process-group.ts'

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
}

export interface CommandExit {
  /** null when a signal ended the shell. */
  exitCode: number | null
  signal: NodeJS.Signals | null
  /** The shell exited but left processes in its group, which were then killed. */
  leftoversKilled: boolean
  /** Something outside the group (it called setsid) still held the output pipes; they were closed. */
  pipesHeld: boolean
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

/** Spawns `/bin/sh -c command`; rejects when the spawn itself fails (missing shell, bad cwd). */
export async function spawnCommand (options: SpawnOptions): Promise<SpawnedCommand> {
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS
  // detached: the child calls setsid(), so it leads a new process group whose id is its pid, and
  // one signal to -pid reaches everything it starts (unless something calls setsid itself).
  const child = spawn('/bin/sh', ['-c', options.command], {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  // Listeners go on before the first await so that no event can slip past them.
  const closed = once(child, 'close').then(() => {}, () => {})
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
  exited.catch(() => {}) // rejects only when the spawn fails, which the await below reports
  const output = new CappedOutput(options.maxOutputChars)
  // One buffer for both streams: the model reads them interleaved, as a terminal shows them.
  for (const stream of [child.stdout, child.stderr]) {
    stream.setEncoding('utf8')
    stream.on('data', (text: string) => output.write(text))
  }
  try {
    await once(child, 'spawn')
  } catch (err) {
    child.stdout.destroy()
    child.stderr.destroy()
    throw err
  }
  const pid = child.pid as number

  let finished = false
  let killing: Promise<void> | undefined
  const kill = (): Promise<void> => {
    if (finished) return Promise.resolve()
    killing ??= killGroup(pid, graceMs).then(() => {})
    return killing
  }

  const done = (async (): Promise<CommandExit> => {
    const [exitCode, signal] = await exited
    let leftoversKilled = false
    if (killing === undefined && await isGroupAlive(pid)) {
      leftoversKilled = true
      await kill()
    } else if (killing !== undefined) {
      await killing
    }
    let timer: NodeJS.Timeout | undefined
    const drained = await Promise.race([
      closed.then(() => true),
      new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), DRAIN_MS) })
    ])
    clearTimeout(timer)
    if (!drained) {
      child.stdout.destroy()
      child.stderr.destroy()
    }
    finished = true
    return { exitCode, signal, leftoversKilled, pipesHeld: !drained }
  })()

  return {
    pid,
    output,
    done,
    get finished () { return finished },
    kill
  }
}
