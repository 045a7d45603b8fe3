// Stdio MCP servers for tests, written into a temp folder, whose every process appends JSON lines to
// the file named by its LOG_FILE: `start` once per process, `message` for every JSON-RPC request or
// notification it reads on stdin (method and params as sent), so that tests count probes and spawns.
// - writeModernStdioServer: speaks only 2026-07-28 (the SDK's serveStdio, 2025 openings refused);
//   `steps` reports progress twice, `hang` logs `cancelled` when its signal aborts, `grow` registers
//   a new tool `late` (told on subscriptions/listen).
// - writeLoggedEverything: @modelcontextprotocol/server-everything (2025 revisions only), as is.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const SDK = new URL('../../../node_modules/@modelcontextprotocol/server/dist/', import.meta.url)
const EVERYTHING = new URL('../../../node_modules/@modelcontextprotocol/server-everything/dist/transports/stdio.js', import.meta.url)

// A second reader of stdin beside the server's own: both get every chunk.
const LOGGING = `
import { appendFileSync } from 'node:fs'
const log = (entry) => appendFileSync(process.env.LOG_FILE, JSON.stringify({ pid: process.pid, ...entry }) + '\\n')
log({ event: 'start' })
let pending = ''
process.stdin.on('data', (chunk) => {
  pending += chunk.toString('utf8')
  const lines = pending.split('\\n')
  pending = lines.pop()
  for (const line of lines) {
    try {
      const message = JSON.parse(line)
      if (message.method) log({ event: 'message', method: message.method, params: message.params })
    } catch {}
  }
})
`

const MODERN = `
import { McpServer, fromJsonSchema } from ${JSON.stringify(new URL('index.mjs', SDK).href)}
import { serveStdio } from ${JSON.stringify(new URL('stdio.mjs', SDK).href)}
const EMPTY = fromJsonSchema({ type: 'object', properties: {} })
const servers = new Set()
serveStdio(() => {
  const server = new McpServer({ name: 'modern-stdio', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } })
  server.registerTool('echo', { description: 'Echoes its text', inputSchema: fromJsonSchema({ type: 'object', properties: { text: { type: 'string' } } }) },
    async ({ text }) => ({ content: [{ type: 'text', text: String(text) }] }))
  server.registerTool('steps', { description: 'Reports progress twice', inputSchema: EMPTY }, async (_args, ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken
    for (const progress of [1, 2]) {
      if (progressToken !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, total: 2 } })
    }
    return { content: [{ type: 'text', text: 'stepped' }] }
  })
  server.registerTool('hang', { description: 'Waits for its cancellation', inputSchema: EMPTY }, (_args, ctx) => new Promise((resolve) => {
    ctx.mcpReq.signal.addEventListener('abort', () => { log({ event: 'cancelled', tool: 'hang' }); resolve({ content: [] }) }, { once: true })
  }))
  server.registerTool('grow', { description: 'Adds the tool late', inputSchema: EMPTY }, async () => {
    for (const one of servers) one.registerTool('late', { description: 'Added later', inputSchema: EMPTY }, async () => ({ content: [{ type: 'text', text: 'late' }] }))
    return { content: [{ type: 'text', text: 'grown' }] }
  })
  servers.add(server)
  return server
}, { legacy: 'reject' })
`

const EVERYTHING_SOURCE = `await import(${JSON.stringify(EVERYTHING.href)})
`

export interface StdioLogEntry {
  pid: number
  event: 'start' | 'message' | 'cancelled'
  method?: string
  params?: { name?: string, protocolVersion?: string, _meta?: Record<string, unknown> }
  tool?: string
}

export interface LoggedStdioServer {
  script: string
  logFile: string
  /** What its processes logged so far, in order. */
  log: () => Promise<StdioLogEntry[]>
}

async function writeLogged (name: string, body: string): Promise<LoggedStdioServer> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-mcp-logged-stdio-'))
  const script = join(dir, name)
  const logFile = join(dir, 'log.jsonl')
  await writeFile(script, LOGGING + body)
  await writeFile(logFile, '')
  const log = async (): Promise<StdioLogEntry[]> => (await readFile(logFile, 'utf8')).split('\n').filter(Boolean).map((line) => JSON.parse(line) as StdioLogEntry)
  return { script: pathToFileURL(script).pathname, logFile, log }
}

/** The 2026-07-28-only server, in a fresh temp folder. */
export function writeModernStdioServer (): Promise<LoggedStdioServer> {
  return writeLogged('modern-stdio-server.mjs', MODERN)
}

/** server-everything's stdio server behind the log, in a fresh temp folder. */
export function writeLoggedEverything (): Promise<LoggedStdioServer> {
  return writeLogged('everything.mjs', EVERYTHING_SOURCE)
}
