// Probe of issue 25 item 2: HTTP/1.1 pipelining. One API key limited to toolset `file`, 3 raw TCP
// connections each writing PIPELINED (8 000) `POST /dispatch/read_file` requests of a small file at
// once without reading an answer, then reading them all (30 s at most). Prints RSS before → peak,
// the slowest /healthz and its failures, the answers by status, and the highest
// gateway_tool_calls_in_flight /metrics showed. Run: PROBE_ROOT=<checkout> node bench/probes/pipelining.ts
import { connect, type Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { keysConfig, logCounts, PROBE_ROOT, startRooted, stopRooted, watch } from './rooted.ts'

const CONNECTIONS = 3
const PIPELINED = Number(process.env.PIPELINED ?? 8000)
const UNREAD_MS = 3000
const ATTACK_MS = 30_000

interface Tally { statuses: Record<string, number>, answered: number, closedEarly: boolean, writtenMs: number }

/** Reads pipelined answers off `socket` (content-length bodies, as Fastify sends JSON), counting statuses. */
function reader (socket: Socket, tally: Tally): void {
  let buffer: Buffer = Buffer.alloc(0)
  socket.on('data', (chunk: Buffer) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk])
    for (;;) {
      const end = buffer.indexOf('\r\n\r\n')
      if (end < 0) return
      const head = buffer.subarray(0, end).toString('latin1')
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0)
      if (buffer.length < end + 4 + length) return
      const status = /^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 'unparsed'
      tally.statuses[status] = (tally.statuses[status] ?? 0) + 1
      tally.answered++
      buffer = buffer.subarray(end + 4 + length)
    }
  })
}

async function pipeline (port: number, key: string): Promise<Tally> {
  const body = JSON.stringify({ path: 'hello.txt' })
  const one = `POST /dispatch/read_file HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  const tally: Tally = { statuses: {}, answered: 0, closedEarly: false, writtenMs: -1 }
  const socket = connect({ host: '127.0.0.1', port })
  socket.pause()
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
  const began = performance.now()
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  socket.on('error', () => {})
  socket.write(one.repeat(PIPELINED), () => { tally.writtenMs = Math.round(performance.now() - began) })
  await sleep(UNREAD_MS) // answers pile up unread
  reader(socket, tally)
  socket.resume()
  const deadline = sleep(ATTACK_MS - UNREAD_MS).then(() => 'deadline')
  while (tally.answered < PIPELINED) {
    const outcome = await Promise.race([closed.then(() => 'closed'), deadline, sleep(100).then(() => 'tick')])
    if (outcome === 'closed') {
      tally.closedEarly = tally.answered < PIPELINED
      break
    }
    if (outcome === 'deadline') break
  }
  socket.destroy()
  return tally
}

const keys = keysConfig([{ name: 'attacker', toolsets: ['file'] }])
const gateway = await startRooted('pipelining', { configYaml: keys.yaml, env: { ...keys.env, METRICS_PUBLIC: 'true' }, files: { 'hello.txt': 'hello\nthree\nlines\n' } })
try {
  let tallies: Tally[] = []
  const began = performance.now()
  const figures = await watch(gateway, async () => {
    tallies = await Promise.all(Array.from({ length: CONNECTIONS }, async () => await pipeline(gateway.port, keys.secret('attacker'))))
  }, { metrics: true })
  const statuses: Record<string, number> = {}
  for (const tally of tallies) for (const [status, count] of Object.entries(tally.statuses)) statuses[status] = (statuses[status] ?? 0) + count
  console.log(JSON.stringify({
    probe: 'pipelining',
    root: PROBE_ROOT,
    sent: CONNECTIONS * PIPELINED,
    answered: tallies.reduce((sum, tally) => sum + tally.answered, 0),
    statuses,
    closedEarly: tallies.filter((tally) => tally.closedEarly).length,
    writtenMs: tallies.map((tally) => tally.writtenMs),
    attackMs: Math.round(performance.now() - began),
    ...figures,
    logs: logCounts()
  }))
} finally {
  await stopRooted(gateway)
}
