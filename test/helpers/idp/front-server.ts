// The HTTP server in front of the test identity provider, on 127.0.0.1: records every request, can be
// slowed or made to fail (per path), and stopped and started again on the same port, so a test can
// show a resource server a provider that is slow, failing or gone, then back.
import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'

export interface RequestRecord { readonly method: string, readonly path: string, readonly at: number }

export type Route = (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void>

export interface FrontServer {
  readonly port: number
  readonly requests: RequestRecord[]
  setDelay: (ms: number, paths?: readonly string[]) => void
  setFailure: (status: number | undefined, paths?: readonly string[]) => void
  stop: () => Promise<void>
  start: () => Promise<void>
}

interface Fault { value: number | undefined, paths: readonly string[] | undefined }

const applies = (fault: Fault, path: string): boolean =>
  fault.value !== undefined && (fault.paths === undefined || fault.paths.some((prefix) => path.startsWith(prefix)))

export async function startFrontServer (route: Route, timeoutMs: number): Promise<FrontServer> {
  const requests: RequestRecord[] = []
  const delay: Fault = { value: undefined, paths: undefined }
  const failure: Fault = { value: undefined, paths: undefined }
  // Aborted by stop(): a request held by a long delay must not keep the process alive.
  let held = new AbortController()

  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname
    requests.push({ method: req.method ?? 'GET', path, at: Date.now() })
    if (applies(delay, path)) await sleep(delay.value, undefined, { signal: held.signal }).catch(() => {})
    if (res.destroyed) return
    if (applies(failure, path)) {
      res.writeHead(failure.value ?? 503, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: 'temporarily_unavailable', error_description: 'made to fail by the test' }))
      return
    }
    await route(req, res, path)
  }
  const server = createServer((req, res) => {
    serve(req, res).catch((error: unknown) => { if (!res.headersSent) res.writeHead(500).end(String(error)) })
  })

  const listen = async (port: number): Promise<void> => {
    server.listen(port, '127.0.0.1')
    await once(server, 'listening', { signal: AbortSignal.timeout(timeoutMs) })
  }
  await listen(0)
  const { port } = server.address() as { port: number }

  return {
    port,
    requests,
    setDelay: (ms, paths) => { Object.assign(delay, { value: ms > 0 ? ms : undefined, paths }) },
    setFailure: (status, paths) => { Object.assign(failure, { value: status, paths }) },
    stop: async () => {
      if (!server.listening) return
      held.abort()
      held = new AbortController()
      const closed = once(server, 'close')
      server.close()
      // Keep-alive connections would otherwise still reach the provider after the "outage".
      server.closeAllConnections()
      await closed
    },
    start: async () => { if (!server.listening) await listen(port) }
  }
}
