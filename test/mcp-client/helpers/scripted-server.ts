// Writes a stdio MCP server built on the SDK's low-level Server, which sends what it is given as it
// is (the high-level McpServer would tidy it): the tools/list answer is the JSON file TOOLS_FILE,
// read again on every request, so a test can serve schemas a real server gets wrong, or thousands
// of tools, and change them. Every tool name answers tools/call by name: `big` returns `bytes`
// characters of text, `notify` sends `times` list_changed notifications, `stats` tells how many
// tools/list requests came in, `pid` the process id, `content` answers its `content` argument as its
// content blocks (images, audio, anything); any other name echoes its arguments.
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { McpServerConfig } from '../../../src/config/schema.ts'

const SDK = new URL('../../../node_modules/@modelcontextprotocol/server/dist/', import.meta.url)

const SOURCE = `
import { readFileSync } from 'node:fs'
import { Server } from ${JSON.stringify(new URL('index.mjs', SDK).href)}
import { StdioServerTransport } from ${JSON.stringify(new URL('stdio.mjs', SDK).href)}
const server = new Server({ name: 'scripted', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } })
let listCalls = 0
const text = (value) => ({ content: [{ type: 'text', text: value }] })
server.setRequestHandler('tools/list', async () => {
  listCalls++
  return { tools: JSON.parse(readFileSync(process.env.TOOLS_FILE, 'utf8')) }
})
server.setRequestHandler('tools/call', async ({ params }) => {
  const args = params.arguments ?? {}
  switch (params.name) {
    case 'big': return text('x'.repeat(args.bytes))
    case 'notify':
      for (let i = 0; i < (args.times ?? 1); i++) await server.sendToolListChanged()
      return text('notified')
    case 'stats': return text(JSON.stringify({ listCalls }))
    case 'pid': return text(String(process.pid))
    case 'content': return { content: args.content }
    default: return text(JSON.stringify(args))
  }
})
await server.connect(new StdioServerTransport())
`

export interface ScriptedServer {
  /** The stdio config that starts it. */
  config: McpServerConfig
  /** Replaces the tools its next tools/list answers. */
  setTools: (tools: unknown[]) => Promise<void>
  dir: string
}

/** A fresh temp folder holding the script and its tools file. */
export async function writeScriptedServer (tools: unknown[]): Promise<ScriptedServer> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-mcp-scripted-'))
  const script = join(dir, 'scripted-server.mjs')
  const toolsFile = join(dir, 'tools.json')
  await writeFile(script, SOURCE)
  const setTools = (list: unknown[]): Promise<void> => writeFile(toolsFile, JSON.stringify(list))
  await setTools(tools)
  return {
    config: { command: process.execPath, args: [script], env: { TOOLS_FILE: toolsFile } } as McpServerConfig,
    setTools,
    dir
  }
}
