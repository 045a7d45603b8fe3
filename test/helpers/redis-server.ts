// A real redis-server (Debian's package, installed when missing) on a free loopback port, without
// persistence, for the tests of the state replicas share (and the benchmark's `shared` group). kill() ends it abruptly (the outage the
// gateway must survive); start() brings it back on the same port, empty.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { connect } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { ensureDebianCommand } from './debian-package.ts'
import { freePort } from './free-port.ts'

export interface TestRedis {
  readonly url: string
  readonly port: number
  /** SIGKILL: no goodbye to clients, as when a node dies. */
  kill: () => Promise<void>
  /** Starts it again on the same port (empty: it keeps nothing on disk). */
  start: () => Promise<void>
  /** SIGSTOP / SIGCONT: connections stay open but nothing answers (a hung node). */
  pause: () => void
  resume: () => void
}

interface TestContext { after: (fn: () => Promise<void> | void) => void }

/** Resolves once the server answers PING (it listens a little after its process starts). */
export async function answersPing (port: number, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    const answered = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('PING\r\n'))
      socket.once('data', (data) => { socket.destroy(); resolve(data.toString().startsWith('+PONG')) })
      socket.once('error', () => resolve(false))
    })
    if (answered) return
    await sleep(25)
  }
  throw new Error(`redis-server on port ${port} did not answer PING in time`)
}

export async function startRedis (t: TestContext): Promise<TestRedis> {
  ensureDebianCommand('redis-server', ['--version'], 'redis-server')
  const port = await freePort()
  let child: ChildProcess | undefined
  const start = async (): Promise<void> => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'], { stdio: 'ignore' })
    await answersPing(port, Date.now() + 10_000)
  }
  const kill = async (): Promise<void> => {
    const running = child
    child = undefined
    if (running === undefined || running.exitCode !== null) return
    const exited = once(running, 'exit')
    running.kill('SIGKILL')
    await exited
  }
  await start()
  t.after(kill)
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    start,
    pause: () => { child?.kill('SIGSTOP') },
    resume: () => { child?.kill('SIGCONT') }
  }
}
