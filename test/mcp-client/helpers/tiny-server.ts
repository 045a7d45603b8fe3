// Writes a tiny stdio MCP server (the real v2 SDK) into a temp folder, for tests that kill, hang
// or restart servers: `slow` answers after `ms`, `pid`, `cwd` and `env` (its XDG_* variables) answer the child's own, `say` writes
// stderr lines, `block` wedges the process for good. Environment knobs:
// IGNORE_SIGTERM=1 makes it ignore SIGTERM and stdin closing; EXIT_AFTER_MS=n exits n ms after the
// client's initialized notification (after start, a loaded machine could still be connecting).
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const SDK = new URL('../../../node_modules/@modelcontextprotocol/server/dist/', import.meta.url)

const SOURCE = `
import { McpServer, fromJsonSchema } from ${JSON.stringify(new URL('index.mjs', SDK).href)}
import { StdioServerTransport } from ${JSON.stringify(new URL('stdio.mjs', SDK).href)}
const server = new McpServer({ name: 'tiny', version: '1.0.0' })
server.registerTool('slow', {
  description: 'Answers after ms milliseconds',
  inputSchema: fromJsonSchema({ type: 'object', properties: { ms: { type: 'number' }, tag: { type: 'string' } } })
}, async ({ ms, tag }) => {
  console.error('slow started ' + (tag ?? ''))
  await new Promise((resolve) => setTimeout(resolve, ms ?? 60000))
  return { content: [{ type: 'text', text: 'done' }] }
})
server.registerTool('pid', { description: 'The server pid', inputSchema: fromJsonSchema({ type: 'object', properties: {} }) },
  async () => ({ content: [{ type: 'text', text: String(process.pid) }] }))
server.registerTool('cwd', { description: 'The working folder', inputSchema: fromJsonSchema({ type: 'object', properties: {} }) },
  async () => ({ content: [{ type: 'text', text: process.cwd() }] }))
server.registerTool('env', { description: 'The XDG variables the server got', inputSchema: fromJsonSchema({ type: 'object', properties: {} }) },
  async () => ({ content: [{ type: 'text', text: JSON.stringify(Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('XDG_')))) }] }))
server.registerTool('say', {
  description: 'Writes lines to stderr',
  inputSchema: fromJsonSchema({ type: 'object', properties: { text: { type: 'string' }, times: { type: 'number' } } })
}, async ({ text, times }) => {
  for (let i = 0; i < (times ?? 1); i++) console.error(text + (times ? ' ' + i : ''))
  return { content: [{ type: 'text', text: 'said' }] }
})
server.registerTool('block', { description: 'Blocks the event loop for good', inputSchema: fromJsonSchema({ type: 'object', properties: {} }) },
  async () => { for (;;) {} })
if (process.env.IGNORE_SIGTERM) {
  process.on('SIGTERM', () => console.error('ignoring SIGTERM'))
  setInterval(() => {}, 1000)
}
if (process.env.EXIT_AFTER_MS) server.server.oninitialized = () => setTimeout(() => process.exit(3), Number(process.env.EXIT_AFTER_MS))
console.error('tiny server up, pid ' + process.pid)
await server.connect(new StdioServerTransport())
`

/** Returns the path of the script, in a fresh temp folder. */
export async function writeTinyServer (): Promise<{ dir: string, script: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-mcp-tiny-'))
  const script = join(dir, 'tiny-server.mjs')
  await writeFile(script, SOURCE)
  return { dir, script: pathToFileURL(script).pathname }
}
