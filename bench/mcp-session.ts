// The client side of the MCP scenarios. 2025-11-25: a session opened once before the load
// (initialize, then notifications/initialized), as a client does on connecting, so every measured
// request is an ordinary message of an established session. 2026-07-28: no session, every request
// carries its envelope and the standard headers. The headers and bodies of those messages.

export const PROTOCOL_VERSION = '2025-11-25'
export const MODERN_REVISION = '2026-07-28'

/**
 * autocannon replaces `[<id>]` by a fresh id per request (its `idReplacement` option). The load
 * needs it: the connections share one session, and the transport routes each answer by its
 * JSON-RPC id, so requests in flight at once must not share one (JSON-RPC requires it, too).
 */
export const PER_REQUEST_ID = '[<id>]'

/** The headers of every message of a session (the Streamable HTTP transport checks each). */
export function sessionHeaders (sessionId: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    'mcp-session-id': sessionId
  }
}

export function rpcBody (method: string, params: unknown, id: string | number = PER_REQUEST_ID): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params })
}

/** The headers of a 2026-07-28 request: the revision, the method and, for tools/call, the tool. */
export function modernHeaders (method: string, name?: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN_REVISION,
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name })
  }
}

/** A 2026-07-28 request: its params with the per-request envelope an SDK 2.4 client sends. */
export function modernBody (method: string, params: Record<string, unknown>, id: string | number = PER_REQUEST_ID): string {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'tool-gateway-bench', version: '1.0.0' }
  }
  return rpcBody(method, { ...params, _meta }, id)
}

/** The JSON-RPC message of an answer: a JSON body, or the `data:` line of a one-event SSE stream. */
export function messageOf (contentType: string, body: string): { result?: unknown, error?: unknown } {
  if (!contentType.startsWith('text/event-stream')) return JSON.parse(body)
  const data = /^data: (.*)$/m.exec(body)
  if (data === null) throw new Error(`an SSE answer without a data line: ${body.slice(0, 200)}`)
  return JSON.parse(data[1])
}

/** Opens a session on the server's /mcp and returns its id. */
export async function openSession (url: string): Promise<string> {
  const { 'mcp-session-id': _none, ...headers } = sessionHeaders('')
  const initialize = rpcBody('initialize', { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'tool-gateway-bench', version: '1.0.0' } }, 0)
  const opened = await fetch(url, { method: 'POST', headers, body: initialize })
  const answer = messageOf(opened.headers.get('content-type') ?? '', await opened.text())
  const sessionId = opened.headers.get('mcp-session-id')
  if (opened.status !== 200 || answer.result === undefined || sessionId === null) {
    throw new Error(`${url}: initialize did not open a session (status ${opened.status}): ${JSON.stringify(answer)}`)
  }
  const initialized = await fetch(url, { method: 'POST', headers: sessionHeaders(sessionId), body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })
  if (initialized.status !== 202) throw new Error(`${url}: notifications/initialized answered ${initialized.status}: ${await initialized.text()}`)
  return sessionId
}
