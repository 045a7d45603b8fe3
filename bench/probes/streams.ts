// Probe of issue 25 item 3: what holds connections and sessions for long. (a) one key opens N MCP
// sessions, each with its GET /mcp notification stream, on a gateway of MAX_CONNECTIONS=40 (N=37 and
// N=40); then /healthz, another key's call and the admin port's /healthz, each tried 5 times on new
// connections. (b) 1 100 keyless POSTs announcing 1 000 bytes of body and sending 1 byte a second,
// on the default 512 connections: /healthz tried 10 times during the attack, and how long the
// gateway keeps those sockets. (c) one key initializes 1 200 sessions (default MCP_MAX_SESSIONS
// 1 000): does another key still get a session? Each attack lasts 30 s at most.
// Run: PROBE_ROOT=<checkout> node bench/probes/streams.ts   (PROBE_PARTS=a,b,c picks parts)
import { request, type ClientRequest } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { keysConfig, logCounts, oneShot, PROBE_ROOT, startRooted, stopRooted, watch } from './rooted.ts'
import { slowBodies } from './slow-bodies.ts'

const PROTOCOL_VERSION = '2025-11-25'
const PARTS = (process.env.PROBE_PARTS ?? 'a,b,c').split(',')
const keys = keysConfig([{ name: 'attacker', toolsets: ['file'] }, { name: 'victim', toolsets: ['file'] }])
const FILES = { 'hello.txt': 'hello\n' }

function mcpHeaders (key: string, sessionId?: string): Record<string, string> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': PROTOCOL_VERSION }
  if (sessionId !== undefined) headers['mcp-session-id'] = sessionId
  return headers
}

/** An initialize on a new connection: its status and the session id it gave, if any. */
async function initialize (port: number, key: string): Promise<{ status: number | string, sessionId?: string }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'probe', version: '1.0.0' } } })
  const answer = await oneShot(port, 'POST', '/mcp', { headers: mcpHeaders(key), body })
  if (answer instanceof Error) return { status: answer.message }
  const sessionId = answer.headers['mcp-session-id']
  if (typeof sessionId !== 'string') return { status: answer.status }
  await oneShot(port, 'POST', '/mcp', { headers: mcpHeaders(key, sessionId), body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })
  return { status: answer.status, sessionId }
}

interface Stream { status: number | string, request: ClientRequest, open: boolean }

/**
 * A GET /mcp notification stream, held open until destroyed. The gateway may send the stream's head
 * only with its first event: a request neither answered nor closed within a second is held.
 */
async function openStream (port: number, key: string, sessionId: string): Promise<Stream> {
  return await new Promise((resolve) => {
    const headers = { ...mcpHeaders(key, sessionId), accept: 'text/event-stream' }
    const req = request({ host: '127.0.0.1', port, method: 'GET', path: '/mcp', agent: false, headers })
    const stream: Stream = { status: 'pending', request: req, open: true }
    const timer = setTimeout(() => {
      if (stream.status === 'pending') stream.status = 'held (no head yet)'
      resolve(stream)
    }, 1000)
    req.on('response', (res) => {
      stream.status = res.statusCode ?? 0
      res.on('data', () => {})
      res.on('close', () => { stream.open = false })
      if (stream.status !== 200) res.once('end', () => { clearTimeout(timer); resolve(stream) })
    })
    req.on('close', () => { stream.open = false })
    req.on('error', (err) => {
      stream.open = false
      if (stream.status === 'pending' || stream.status === 'held (no head yet)') stream.status = err.message
      clearTimeout(timer)
      resolve(stream)
    })
    req.end()
  })
}

function count (values: Array<number | string>): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const value of values) counts[String(value)] = (counts[String(value)] ?? 0) + 1
  return counts
}

/** `tries` sequential attempts, each on a new connection: how many answered 200, and what the others were. */
async function tries (times: number, attempt: () => Promise<{ status: number } | Error>): Promise<{ ok: number, other: Record<string, number> }> {
  const other: Array<number | string> = []
  let ok = 0
  for (let i = 0; i < times; i++) {
    const answer = await attempt()
    if (!(answer instanceof Error) && answer.status === 200) ok++
    else other.push(answer instanceof Error ? answer.message : answer.status)
    await sleep(200)
  }
  return { ok, other: count(other) }
}

async function partA (streams: number): Promise<void> {
  const gateway = await startRooted(`streams-a${streams}`, { configYaml: keys.yaml, env: { ...keys.env, MAX_CONNECTIONS: '40' }, files: FILES, adminPort: true })
  const held: Stream[] = []
  try {
    const sessions: Array<number | string> = []
    for (let i = 0; i < streams; i++) {
      const opened = await initialize(gateway.port, keys.secret('attacker'))
      sessions.push(opened.sessionId === undefined ? opened.status : 'session')
      if (opened.sessionId !== undefined) held.push(await openStream(gateway.port, keys.secret('attacker'), opened.sessionId))
    }
    await sleep(500)
    const read = JSON.stringify({ path: 'hello.txt' })
    const healthz = await tries(5, async () => await oneShot(gateway.port, 'GET', '/healthz', { timeoutMs: 3000 }))
    const victim = await tries(5, async () => await oneShot(gateway.port, 'POST', '/dispatch/read_file', { headers: { authorization: `Bearer ${keys.secret('victim')}`, 'content-type': 'application/json' }, body: read, timeoutMs: 3000 }))
    const admin = await tries(5, async () => await oneShot(gateway.adminPort ?? 0, 'GET', '/healthz', { timeoutMs: 3000 }))
    console.log(JSON.stringify({
      probe: 'streams-a',
      root: PROBE_ROOT,
      maxConnections: 40,
      attackerStreamsTried: streams,
      initialize: count(sessions),
      streams: count(held.map((stream) => stream.status)),
      streamsStillOpen: held.filter((stream) => stream.open).length,
      healthz,
      victimReadFile: victim,
      adminHealthz: admin,
      logs: logCounts()
    }))
  } finally {
    for (const stream of held) stream.request.destroy()
    await stopRooted(gateway)
  }
}

async function partB (): Promise<void> {
  const gateway = await startRooted('streams-b', { configYaml: keys.yaml, env: keys.env, files: FILES })
  try {
    let result: Record<string, unknown> = {}
    const figures = await watch(gateway, async () => {
      const attack = slowBodies(gateway.port, { sockets: 1100, contentLength: 1000, durationMs: 29_000 })
      await sleep(3000)
      const healthz = await tries(10, async () => { const answer = await oneShot(gateway.port, 'GET', '/healthz', { timeoutMs: 2000 }); await sleep(800); return answer })
      result = { healthzDuringAttack: healthz, ...await attack }
    })
    console.log(JSON.stringify({ probe: 'streams-b', root: PROBE_ROOT, maxConnections: 512, ...result, ...figures, logs: logCounts() }))
  } finally {
    await stopRooted(gateway)
  }
}

async function partC (): Promise<void> {
  const gateway = await startRooted('streams-c', { configYaml: keys.yaml, env: keys.env, files: FILES })
  try {
    const attacker: Array<number | string> = []
    let victim: Array<number | string> = []
    const began = performance.now()
    const figures = await watch(gateway, async () => {
      let next = 0
      const worker = async (): Promise<void> => {
        while (next < 1200 && performance.now() - began < 28_000) {
          next++
          const opened = await initialize(gateway.port, keys.secret('attacker'))
          attacker.push(opened.sessionId === undefined ? `no session (${opened.status})` : 'session')
        }
      }
      await Promise.all(Array.from({ length: 8 }, worker))
      for (let i = 0; i < 5; i++) {
        const opened = await initialize(gateway.port, keys.secret('victim'))
        victim = [...victim, opened.sessionId === undefined ? `no session (${opened.status})` : 'session']
      }
    })
    console.log(JSON.stringify({ probe: 'streams-c', root: PROBE_ROOT, attackerInitialize: count(attacker), victimInitialize: count(victim), attackMs: Math.round(performance.now() - began), ...figures, logs: logCounts() }))
  } finally {
    await stopRooted(gateway)
  }
}

if (PARTS.includes('a')) for (const streams of [37, 40]) await partA(streams)
if (PARTS.includes('b')) await partB()
if (PARTS.includes('c')) await partC()
