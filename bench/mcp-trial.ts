// The optional MCP pairs (groups mcp-call and mcp-list), each probed once before the load.
// mcp-call: tools/call of the built-in read_file over POST /mcp, in a 2025-11-25 session and in
// 2026-07-28 (stateless), each against a bare JSON-RPC route of the floor doing the same read
// (mcp-baseline.ts); and the 2026-07-28 call against the gateway's own REST POST /dispatch/read_file
// of the same file (the "floor" side of that pair is the gateway's REST route). mcp-list: tools/list
// of the 1 000-tool gateway over /mcp in each revision, against a static route of the floor
// answering the same POST with the same bytes.
import { copyFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Scenario, Target } from './measure.ts'
import { BASELINE_SESSION_ID } from './mcp-baseline.ts'
import { messageOf, modernBody, modernHeaders, openSession, rpcBody, sessionHeaders } from './mcp-session.ts'
import { probe, type Sizes } from './scenarios.ts'

// A small real file of this project (about 1.3 KB, 30 lines): what an agent reads most often is
// a source file of this size, and a small one keeps the cost of the protocol in view.
const READ_FILE_SOURCE = fileURLToPath(new URL('../src/shared/timers.ts', import.meta.url))
const READ_FILE_PATH = 'timers.ts'

interface CallResult { content: Array<{ type: string, text: string }>, isError: boolean }

/** What the floor must serve for a tools/list pair. */
export interface McpStatic { pair: string, url: string, bytes: string, contentType: string, method: string }

/** Posts one message and returns the JSON-RPC result, failing on anything else. */
async function call (url: string, headers: Record<string, string>, body: string): Promise<{ result: unknown, bytes: number }> {
  const { text, response } = await probe(url, { method: 'POST', headers, body })
  const message = messageOf(response.headers.get('content-type') ?? '', text)
  if (message.result === undefined) throw new Error(`${url}: no result: ${text.slice(0, 300)}`)
  return { result: message.result, bytes: Buffer.byteLength(text) }
}

const textOf = (result: unknown): string | undefined => (result as CallResult).content[0]?.text

export async function readFileScenarios (workspace: string, gateway: Target, floor: Target, sizes: Sizes): Promise<Scenario[]> {
  await copyFile(READ_FILE_SOURCE, join(workspace, READ_FILE_PATH))
  const sessionId = await openSession(`${gateway.url}/mcp`)
  const params = { name: 'read_file', arguments: { path: READ_FILE_PATH } }
  const modern = modernHeaders('tools/call', 'read_file')
  const viaMcp = await call(`${gateway.url}/mcp`, sessionHeaders(sessionId), rpcBody('tools/call', params, 1))
  const viaBare = await call(`${floor.url}/mcp`, sessionHeaders(BASELINE_SESSION_ID), rpcBody('tools/call', params, 1))
  const viaModern = await call(`${gateway.url}/mcp`, modern, modernBody('tools/call', params, 1))
  const viaModernBare = await call(`${floor.url}/mcp-modern`, modern, modernBody('tools/call', params, 1))
  const viaRest = await probe(`${gateway.url}/dispatch/read_file`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params.arguments) })
  const text = textOf(viaMcp.result)
  if ((viaMcp.result as CallResult).isError || [viaBare, viaModern, viaModernBare].some((answer) => textOf(answer.result) !== text) || (JSON.parse(viaRest.text) as { content: string }).content !== text) {
    throw new Error(`read_file over /mcp (both revisions), REST and the bare routes differ:\n${JSON.stringify([viaMcp, viaBare, viaModern, viaModernBare].map((answer) => answer.result))}\n${viaRest.text}`)
  }
  sizes['mcp-call'] = viaMcp.bytes
  sizes['mcp-modern-call'] = viaModern.bytes
  sizes['mcp-modern-rest'] = viaModern.bytes
  const session = (url: string, id: string): Scenario['options'] => ({ url, method: 'POST', headers: sessionHeaders(id), body: rpcBody('tools/call', params), idReplacement: true })
  const stateless = (url: string): Scenario['options'] => ({ url, method: 'POST', headers: modern, body: modernBody('tools/call', params), idReplacement: true })
  const rest: Scenario['options'] = { url: `${gateway.url}/dispatch/read_file`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params.arguments) }
  return [
    { pair: 'mcp-call', side: 'floor', description: `floor: JSON-RPC route, reads the same file, same SSE answer (${viaBare.bytes} bytes)`, server: floor, options: session(`${floor.url}/mcp`, BASELINE_SESSION_ID), expectedStatus: 200 },
    { pair: 'mcp-call', side: 'gateway', description: `gateway: MCP 2025-11-25 tools/call read_file of a 1.3 KB file (${viaMcp.bytes} bytes), in a session`, server: gateway, options: session(`${gateway.url}/mcp`, sessionId), expectedStatus: 200 },
    { pair: 'mcp-modern-call', side: 'floor', description: `floor: JSON-RPC route checking the envelope and headers, reads the same file, same JSON answer (${viaModernBare.bytes} bytes)`, server: floor, options: stateless(`${floor.url}/mcp-modern`), expectedStatus: 200 },
    { pair: 'mcp-modern-call', side: 'gateway', description: `gateway: MCP 2026-07-28 tools/call read_file of a 1.3 KB file (${viaModern.bytes} bytes), no session`, server: gateway, options: stateless(`${gateway.url}/mcp`), expectedStatus: 200 },
    { pair: 'mcp-modern-rest', side: 'floor', description: `"floor": the gateway's own REST POST /dispatch/read_file of the same file (${Buffer.byteLength(viaRest.text)} bytes)`, server: gateway, options: rest, expectedStatus: 200 },
    { pair: 'mcp-modern-rest', side: 'gateway', description: 'gateway: the same read as an MCP 2026-07-28 tools/call', server: gateway, options: stateless(`${gateway.url}/mcp`), expectedStatus: 200 }
  ]
}

interface ListPair { pair: string, url: string, headers: Record<string, string>, body: (id?: number) => string, what: string }

/** tools/list of the gateway's catalogue in both revisions, probed; the floor's pairs are built once the floor serves the bytes. */
export async function toolsListScenarios (gateway: Target, sizes: Sizes): Promise<{ bytes: McpStatic[], scenarios: (floor: Target) => Promise<Scenario[]> }> {
  const sessionId = await openSession(`${gateway.url}/mcp`)
  const pairs: ListPair[] = [
    { pair: 'mcp-list', url: '/mcp-list', headers: sessionHeaders(sessionId), body: (id) => rpcBody('tools/list', {}, id), what: 'MCP 2025-11-25 tools/list, in a session' },
    { pair: 'mcp-modern-list', url: '/mcp-modern-list', headers: modernHeaders('tools/list'), body: (id) => modernBody('tools/list', {}, id), what: 'MCP 2026-07-28 tools/list, no session' }
  ]
  const probed = await Promise.all(pairs.map(async (pair) => {
    const { text, response } = await probe(`${gateway.url}/mcp`, { method: 'POST', headers: pair.headers, body: pair.body(1) })
    const contentType = response.headers.get('content-type') ?? ''
    const page = messageOf(contentType, text).result as { tools?: unknown[] } | undefined
    if (page?.tools === undefined || page.tools.length === 0) throw new Error(`tools/list answered no tools: ${text.slice(0, 300)}`)
    sizes[pair.pair] = Buffer.byteLength(text)
    return { pair, tools: page.tools.length, bytes: { pair: pair.pair, url: pair.url, bytes: text, contentType, method: 'POST' } satisfies McpStatic }
  }))
  return {
    bytes: probed.map((p) => p.bytes),
    scenarios: async (floor) => (await Promise.all(probed.map(async ({ pair, tools, bytes }) => {
      const same = await probe(`${floor.url}${pair.url}`, { method: 'POST', headers: pair.headers, body: pair.body(1) })
      if (same.text !== bytes.bytes || same.response.headers.get('content-type') !== bytes.contentType) throw new Error(`the static route does not serve the same ${pair.pair} bytes`)
      const load = (url: string): Scenario['options'] => ({ url, method: 'POST', headers: pair.headers, body: pair.body(), idReplacement: true })
      return [
        { pair: pair.pair, side: 'floor' as const, description: `floor: static route, the same ${sizes[pair.pair]} bytes (${bytes.contentType.split(';')[0]})`, server: floor, options: load(`${floor.url}${pair.url}`), expectedStatus: 200 },
        { pair: pair.pair, side: 'gateway' as const, description: `gateway: ${pair.what}, ${tools} tools in the first page`, server: gateway, options: load(`${gateway.url}/mcp`), expectedStatus: 200 }
      ]
    }))).flat()
  }
}
