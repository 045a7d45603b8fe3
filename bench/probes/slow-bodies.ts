// The slow-body attack of bench/probes/streams.ts (b): many keyless POSTs that announce a body and
// trickle it one byte a second, and how long the gateway keeps each socket.
import { connect, type Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'

interface Trickle { socket: Socket, openedAt: number, connected: boolean, answeredAt?: number, closedAt?: number, status?: string }

export interface SlowBodyFigures {
  sockets: number
  connected: number
  /** Closed by the gateway without an answer (MAX_CONNECTIONS closes new ones on arrival). */
  closedUnanswered: number
  answered: Record<string, number>
  /** Still open when the attack ended, and of those how many had been answered. */
  stillOpen: number
  stillOpenAnswered: number
  /** Seconds from connect to the gateway's close, over the sockets it answered, median and max. */
  answeredHeldMedianS?: number
  answeredHeldMaxS?: number
}

function trickle (port: number, contentLength: number): Trickle {
  const socket = connect({ host: '127.0.0.1', port })
  const entry: Trickle = { socket, openedAt: performance.now(), connected: false }
  socket.on('connect', () => {
    entry.connected = true
    socket.write(`POST /dispatch/read_file HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${contentLength}\r\n\r\n{`)
  })
  socket.on('data', (chunk: Buffer) => {
    entry.answeredAt ??= performance.now()
    entry.status ??= /^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1'))?.[1] ?? 'unparsed'
  })
  socket.on('error', () => {})
  socket.on('close', () => { entry.closedAt ??= performance.now() })
  return entry
}

function median (values: number[]): number | undefined {
  if (values.length === 0) return undefined
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

/** Opens `sockets` trickling POSTs, sends one more body byte a second on each, for `durationMs`. */
export async function slowBodies (port: number, options: { sockets: number, contentLength: number, durationMs: number }): Promise<SlowBodyFigures> {
  const began = performance.now()
  const trickles: Trickle[] = []
  for (let i = 0; i < options.sockets; i++) {
    trickles.push(trickle(port, options.contentLength))
    if (i % 50 === 49) await sleep(10)
  }
  const ticker = setInterval(() => {
    for (const entry of trickles) if (entry.connected && entry.closedAt === undefined && entry.socket.writable) entry.socket.write(' ')
  }, 1000)
  await sleep(Math.max(0, options.durationMs - (performance.now() - began)))
  clearInterval(ticker)
  const stillOpen = trickles.filter((entry) => entry.closedAt === undefined).length
  const stillOpenAnswered = trickles.filter((entry) => entry.closedAt === undefined && entry.answeredAt !== undefined).length
  for (const entry of trickles) entry.socket.destroy()
  const answered: Record<string, number> = {}
  for (const entry of trickles) if (entry.status !== undefined) answered[entry.status] = (answered[entry.status] ?? 0) + 1
  const held = trickles.filter((entry) => entry.answeredAt !== undefined && entry.closedAt !== undefined && entry.closedAt < began + options.durationMs)
    .map((entry) => ((entry.closedAt ?? 0) - entry.openedAt) / 1000)
  const round = (value: number | undefined): number | undefined => value === undefined ? undefined : Math.round(value * 100) / 100
  return {
    sockets: options.sockets,
    connected: trickles.filter((entry) => entry.connected).length,
    closedUnanswered: trickles.filter((entry) => entry.answeredAt === undefined && entry.closedAt !== undefined && entry.closedAt < began + options.durationMs).length,
    answered,
    stillOpen,
    stillOpenAnswered,
    answeredHeldMedianS: round(median(held)),
    answeredHeldMaxS: round(held.length === 0 ? undefined : Math.max(...held))
  }
}
