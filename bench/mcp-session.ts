// The client side of the MCP scenarios: a session opened once before the load (initialize, then
// notifications/initialized), as a client does on connecting, so every measured request is an
// ordinary message of an established session; and the headers and bodies of those messages.

export const PROTOCOL_VERSION = '2025-11-25'

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
