// The optional MCP pairs (groups mcp-call and mcp-list), each probed once before the load:
// tools/call of the built-in read_file over POST /mcp in a session against a bare JSON-RPC route of
// the floor doing the same read (mcp-baseline.ts); tools/list of the 1 000-tool gateway over /mcp
// against a static route of the floor answering the same POST with the same bytes.
import { copyFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Scenario, Target } from './measure.ts'
import { BASELINE_SESSION_ID } from './mcp-baseline.ts'
import { messageOf, openSession, rpcBody, sessionHeaders } from './mcp-session.ts'
import { probe, type Sizes } from './scenarios.ts'

// A small real file of this project (about 1.3 KB, 30 lines): what an agent reads most often is
// a source file of this size, and a small one keeps the cost of the protocol in view.
const READ_FILE_SOURCE = fileURLToPath(new URL('../src/timers.ts', import.meta.url))
const READ_FILE_PATH = 'timers.ts'

interface CallResult { content: Array<{ type: string, text: string }>, isError: boolean }

/** What the floor must serve for the tools/list pair. */
export interface McpStatic { pair: string, url: string, bytes: string, contentType: string, method: string }

/** Posts one message of a session and returns the JSON-RPC result, failing on anything else. */
async function call (url: string, headers: Record<string, string>, body: string): Promise<{ result: unknown, bytes: number }> {
  const { text, response } = await probe(url, { method: 'POST', headers, body })
  const message = messageOf(response.headers.get('content-type') ?? '', text)
  if (message.result === undefined) throw new Error(`${url}: no result: ${text.slice(0, 300)}`)
  return { result: message.result, bytes: Buffer.byteLength(text) }
}

export async function readFileScenarios (workspace: string, gateway: Target, floor: Target, sizes: Sizes): Promise<Scenario[]> {
  await copyFile(READ_FILE_SOURCE, join(workspace, READ_FILE_PATH))
  const sessionId = await openSession(`${gateway.url}/mcp`)
  const params = { name: 'read_file', arguments: { path: READ_FILE_PATH } }
  const viaMcp = await call(`${gateway.url}/mcp`, sessionHeaders(sessionId), rpcBody('tools/call', params, 1))
  const viaBare = await call(`${floor.url}/mcp`, sessionHeaders(BASELINE_SESSION_ID), rpcBody('tools/call', params, 1))
  const text = (viaMcp.result as CallResult).content[0]?.text
  if ((viaMcp.result as CallResult).isError || (viaBare.result as CallResult).content[0]?.text !== text) {
    throw new Error(`read_file over /mcp and the bare route differ:\n${JSON.stringify(viaMcp.result)}\n${JSON.stringify(viaBare.result)}`)
  }
  sizes['mcp-call'] = viaMcp.bytes
  const load = (url: string, id: string): Scenario['options'] => ({ url, method: 'POST', headers: sessionHeaders(id), body: rpcBody('tools/call', params), idReplacement: true })
  return [
    { pair: 'mcp-call', side: 'floor', description: `floor: JSON-RPC route, reads the same file, same SSE answer (${viaBare.bytes} bytes)`, server: floor, options: load(`${floor.url}/mcp`, BASELINE_SESSION_ID), expectedStatus: 200 },
    { pair: 'mcp-call', side: 'gateway', description: `gateway: MCP tools/call read_file of a 1.3 KB file (${viaMcp.bytes} bytes), in a session`, server: gateway, options: load(`${gateway.url}/mcp`, sessionId), expectedStatus: 200 }
  ]
}

/** tools/list of the gateway's catalogue, probed; the floor's pair is built once the floor serves the bytes. */
export async function toolsListScenarios (gateway: Target, sizes: Sizes): Promise<{ bytes: McpStatic, scenarios: (floor: Target) => Promise<Scenario[]> }> {
  const sessionId = await openSession(`${gateway.url}/mcp`)
  const headers = sessionHeaders(sessionId)
  const { text, response } = await probe(`${gateway.url}/mcp`, { method: 'POST', headers, body: rpcBody('tools/list', {}, 1) })
  const contentType = response.headers.get('content-type') ?? ''
  const page = messageOf(contentType, text).result as { tools?: unknown[] } | undefined
  if (page?.tools === undefined || page.tools.length === 0) throw new Error(`tools/list answered no tools: ${text.slice(0, 300)}`)
  sizes['mcp-list'] = Buffer.byteLength(text)
  const bytes: McpStatic = { pair: 'mcp-list', url: '/mcp-list', bytes: text, contentType, method: 'POST' }
  const load = (url: string): Scenario['options'] => ({ url, method: 'POST', headers, body: rpcBody('tools/list', {}), idReplacement: true })
  return {
    bytes,
    scenarios: async (floor) => {
      const same = await probe(`${floor.url}/mcp-list`, { method: 'POST', headers, body: rpcBody('tools/list', {}, 1) })
      if (same.text !== text || same.response.headers.get('content-type') !== contentType) throw new Error('the static route does not serve the same tools/list bytes')
      return [
        { pair: 'mcp-list', side: 'floor', description: `floor: static route, the same ${sizes['mcp-list']} bytes (SSE)`, server: floor, options: load(`${floor.url}/mcp-list`), expectedStatus: 200 },
        { pair: 'mcp-list', side: 'gateway', description: `gateway: MCP tools/list, ${page.tools?.length} tools in the first page, in a session`, server: gateway, options: load(`${gateway.url}/mcp`), expectedStatus: 200 }
      ]
    }
  }
}
