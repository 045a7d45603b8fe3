// /mcp spoken by hand, for what SDK clients hide: statuses, headers, session ids, error bodies.
export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

export interface RawAnswer {
  status: number
  headers: Headers
  /** The JSON-RPC message of the answer (the first `data:` line of a stream), or undefined. */
  message: { result?: Record<string, unknown>, error?: { code: number, message: string, data?: Record<string, unknown> } } | undefined
}

export async function rawRpc (url: URL | string, body: unknown, headers: Record<string, string> = {}, method = 'POST'): Promise<RawAnswer> {
  const post = method === 'POST'
  const response = await fetch(url, {
    method,
    headers: { ...(post ? MCP_HEADERS : { accept: MCP_HEADERS.accept }), ...headers },
    body: post ? (typeof body === 'string' ? body : JSON.stringify(body)) : undefined
  })
  const text = await response.text()
  const json = response.headers.get('content-type')?.startsWith('text/event-stream') === true
    ? text.split('\n').find((line) => line.startsWith('data: '))?.slice('data: '.length)
    : text
  return { status: response.status, headers: response.headers, message: json === undefined || json === '' ? undefined : JSON.parse(json) }
}

export function initializeMessage (protocolVersion = '2025-11-25'): unknown {
  return { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }
}

/** Opens a session by hand: its id, for requests that must carry it. */
export async function openSession (url: URL | string, headers: Record<string, string> = {}): Promise<string> {
  const answer = await rawRpc(url, initializeMessage(), headers)
  const id = answer.headers.get('mcp-session-id')
  if (answer.status !== 200 || id === null) throw new Error(`initialize gave ${answer.status} without a session: ${JSON.stringify(answer.message)}`)
  await rawRpc(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...headers, 'mcp-session-id': id })
  return id
}
