// 2026-07-28 requests spoken by hand: the per-request envelope and the standard headers.
export const REVISION = '2026-07-28'

export function envelope (revision = REVISION): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': revision,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }
  }
}

export function modernRequest (method: string, params: Record<string, unknown>, revision = REVISION, id: string | number = 1): unknown {
  const meta = { ...envelope(revision), ...(params._meta as Record<string, unknown> | undefined) }
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }
}

/** The standard headers of a request of `method` (Mcp-Name is the caller's to add). */
export function modernHeaders (method: string): Record<string, string> {
  return { 'mcp-protocol-version': REVISION, 'mcp-method': method }
}
