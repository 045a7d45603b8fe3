// The Redis of the replicas' scenario (BENCH_SCENARIOS=shared): Debian's redis-server on a free
// loopback port, without persistence (the gateway's state there is ephemeral), stopped with the trial.
import { spawn, type ChildProcess } from 'node:child_process'
import { connect } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { freePort } from './gateway-process.ts'

export interface RedisServer { url: string, child: ChildProcess }

async function answersPing (port: number): Promise<boolean> {
  return await new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('PING\r\n'))
    socket.once('data', (data) => { socket.destroy(); resolve(data.toString().startsWith('+PONG')) })
    socket.once('error', () => resolve(false))
  })
}

export async function startRedis (): Promise<RedisServer> {
  const port = await freePort()
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
  const failed = new Promise<never>((_resolve, reject) => child.once('error', (err) => reject(new Error(`redis-server could not start (the shared group needs Debian's redis-server): ${err.message}`))))
  const deadline = performance.now() + 10_000
  while (!await Promise.race([answersPing(port), failed])) {
    if (performance.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING within 10 s`)
    await sleep(25)
  }
  return { url: `redis://127.0.0.1:${port}`, child }
}

export async function stopRedis (redis: RedisServer): Promise<void> {
  if (redis.child.exitCode !== null || redis.child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => redis.child.once('exit', () => resolve()))
  redis.child.kill('SIGTERM')
  await exited
}
