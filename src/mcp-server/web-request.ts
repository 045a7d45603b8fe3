// The Fastify request as the web Request the SDK's handlers take (its body was parsed, and
// size-capped, already, and goes to them parsed), and a JSON-RPC error answered by the endpoint
// itself, as the SDK answers its own.

/** The Fastify request as a web Request; `signal` ends what the SDK serves from it (a listen stream). */
export function webRequestOf (request: { headers: Record<string, string | string[] | undefined>, host: string, url: string, method: string }, signal?: AbortSignal): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item)
  }
  return new Request(`http://${request.host}${request.url}`, { method: request.method, headers, signal })
}

export function jsonRpcError (status: number, code: number, message: string, headers?: Record<string, string>, id: string | number | null = null): Response {
  return Response.json({ jsonrpc: '2.0', id, error: { code, message } }, { status, headers })
}
