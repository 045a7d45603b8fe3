// The MCP scenarios of a trial, each probed once before the load: (d) tools/call of the built-in
// read_file over POST /mcp in a session, (d0) a bare JSON-RPC route doing the same read, (b') the
// same read through REST; (e) tools/list of 500 tools over /mcp, (e0) a static route of its bytes.
import { copyFile, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Scenario } from './measure.ts'
import { BASELINE_SESSION_ID } from './mcp-baseline.ts'
import { messageOf, openSession, rpcBody, sessionHeaders } from './mcp-session.ts'
import { DEFINITION_TOOLS, probe, type Sizes, type TrialServers } from './trial-servers.ts'

// A small real file of this project (about 1.3 KB, 30 lines): what an agent reads most often is
// a source file of this size, and a small one keeps the cost of the protocol in view.
const READ_FILE_SOURCE = fileURLToPath(new URL('../src/timers.ts', import.meta.url))
const READ_FILE_PATH = 'timers.ts'

interface CallResult { content: Array<{ type: string, text: string }>, isError: boolean }

/** Posts one message of a session and returns the JSON-RPC result, failing on anything else. */
async function call (url: string, headers: Record<string, string>, body: string): Promise<{ result: unknown, bytes: number }> {
  const response = await probe(url, { method: 'POST', headers, body }, 200)
  const text = await response.text()
  const message = messageOf(response.headers.get('content-type') ?? '', text)
  if (message.result === undefined) throw new Error(`${url}: no result: ${text.slice(0, 300)}`)
  return { result: message.result, bytes: Buffer.byteLength(text) }
}

export async function readFileScenarios (servers: TrialServers, sizes: Sizes): Promise<Scenario[]> {
  const workspace = join(servers.scratch, 'workspace')
  await mkdir(workspace, { recursive: true })
  await copyFile(READ_FILE_SOURCE, join(workspace, READ_FILE_PATH))
  const gateway = await servers.get('gateway-tools', [workspace])
  const bare = await servers.get('bare-mcp', [workspace])
  const sessionId = await openSession(`${gateway.url}/mcp`)
  const params = { name: 'read_file', arguments: { path: READ_FILE_PATH } }

  const viaMcp = await call(`${gateway.url}/mcp`, sessionHeaders(sessionId), rpcBody('tools/call', params, 1))
  const viaBare = await call(`${bare.url}/mcp`, sessionHeaders(BASELINE_SESSION_ID), rpcBody('tools/call', params, 1))
  const text = (viaMcp.result as CallResult).content[0]?.text
  if ((viaMcp.result as CallResult).isError || (viaBare.result as CallResult).content[0]?.text !== text) {
    throw new Error(`read_file over /mcp and the bare route differ:\n${JSON.stringify(viaMcp.result)}\n${JSON.stringify(viaBare.result)}`)
  }
  const rest = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params.arguments) }
  const envelope = await (await probe(`${gateway.url}/dispatch/read_file`, rest, 200)).json() as { ok: boolean, content: string }
  if (!envelope.ok || envelope.content !== text) throw new Error(`read_file over REST differs: ${JSON.stringify(envelope)}`)
  sizes.readFileMcpBytes = viaMcp.bytes
  sizes.readFileBareBytes = viaBare.bytes

  const load = (url: string, id: string): Scenario['options'] => ({ url, method: 'POST', headers: sessionHeaders(id), body: rpcBody('tools/call', params), idReplacement: true })
  return [
    { key: 'd0', description: `bare Fastify: JSON-RPC route, reads the same file, same SSE answer (${viaBare.bytes} bytes)`, server: bare, options: load(`${bare.url}/mcp`, BASELINE_SESSION_ID), expectedStatus: 200 },
    { key: 'd', description: `gateway: MCP tools/call read_file (${viaMcp.bytes} bytes), in a session`, server: gateway, options: load(`${gateway.url}/mcp`, sessionId), expectedStatus: 200 },
    { key: "b'", description: 'gateway: POST /dispatch/read_file, same file', server: gateway, options: { url: `${gateway.url}/dispatch/read_file`, ...rest }, expectedStatus: 200 }
  ]
}

export async function toolsListScenarios (servers: TrialServers, sizes: Sizes): Promise<Scenario[]> {
  const gateway = await servers.get('gateway-definitions')
  const sessionId = await openSession(`${gateway.url}/mcp`)
  const headers = sessionHeaders(sessionId)
  const response = await probe(`${gateway.url}/mcp`, { method: 'POST', headers, body: rpcBody('tools/list', {}, 1) }, 200)
  const contentType = response.headers.get('content-type') ?? ''
  const bytes = await response.text()
  const page = messageOf(contentType, bytes).result as { tools?: unknown[], nextCursor?: string } | undefined
  if (page?.tools?.length !== DEFINITION_TOOLS || page.nextCursor !== undefined) {
    throw new Error(`tools/list did not answer the ${DEFINITION_TOOLS} tools in one page`)
  }
  sizes.toolsListBytes = Buffer.byteLength(bytes)

  // The floor for (e): a static route answering the same POST with those bytes, same content type.
  const file = join(servers.scratch, 'tools-list.sse')
  await writeFile(file, bytes)
  const staticServer = await servers.get('static', [file, contentType, 'POST', '/mcp'])
  const same = await probe(`${staticServer.url}/mcp`, { method: 'POST', headers, body: rpcBody('tools/list', {}, 1) }, 200)
  if (await same.text() !== bytes || same.headers.get('content-type') !== contentType) throw new Error('the static route does not serve the same tools/list bytes')

  const load = (url: string): Scenario['options'] => ({ url, method: 'POST', headers, body: rpcBody('tools/list', {}), idReplacement: true })
  return [
    { key: 'e0', description: `bare Fastify: static route, the same ${sizes.toolsListBytes} bytes (SSE)`, server: staticServer, options: load(`${staticServer.url}/mcp`), expectedStatus: 200 },
    { key: 'e', description: `gateway: MCP tools/list, ${DEFINITION_TOOLS} tools, in a session`, server: gateway, options: load(`${gateway.url}/mcp`), expectedStatus: 200 }
  ]
}
