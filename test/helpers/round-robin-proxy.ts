// A load balancer in front of replicas, as small as a test needs: request n goes to backend
// n % backends, with its method, path, headers and body, and the answer streams back unchanged. On
// 127.0.0.1 only. A backend it cannot reach answers 502 (the test sees a failed call, not a hang).
import { Agent, createServer, request as forward, type IncomingHttpHeaders } from 'node:http'
import { once } from 'node:events'

interface TestContext { after: (fn: () => Promise<void> | void) => void }

export interface RoundRobinProxy {
  readonly url: string
  /** Requests sent to each backend so far, by index. */
  readonly forwarded: readonly number[]
}

// Headers about one connection, not the request: each hop sets its own.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer'])

function endToEnd (headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)))
}

/** Starts the proxy in front of `backends` (ports on 127.0.0.1); closed after the test. */
export async function startRoundRobinProxy (t: TestContext, backends: readonly number[]): Promise<RoundRobinProxy> {
  const agent = new Agent({ keepAlive: true })
  const forwarded = backends.map(() => 0)
  let next = 0
  const server = createServer((incoming, outgoing) => {
    const index = next++ % backends.length
    forwarded[index]++
    const upstream = forward({
      host: '127.0.0.1',
      port: backends[index],
      method: incoming.method,
      path: incoming.url,
      headers: endToEnd(incoming.headers),
      agent
    }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers))
      answer.pipe(outgoing)
    })
    upstream.on('error', (err) => {
      if (outgoing.headersSent) {
        outgoing.destroy(err)
        return
      }
      outgoing.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: backend ${index} failed: ${err.message}`)
    })
    incoming.pipe(upstream)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.after(async () => {
    server.closeAllConnections()
    server.close()
    agent.destroy()
  })
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}`, forwarded }
}
