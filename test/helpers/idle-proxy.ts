// A TCP proxy that closes a connection on which no byte went either way for `idleMs`, as cloud load
// balancers and NAT gateways do (an AWS ALB's idle timeout is 60 s): what a long call must survive.
// On 127.0.0.1 only; every connection to it is piped to the backend port.
import { once } from 'node:events'
import { connect, createServer, type Socket } from 'node:net'

interface TestContext { after: (fn: () => Promise<void> | void) => void }

export interface IdleProxy {
  readonly url: string
  /** Connections it closed for being idle. */
  readonly cut: () => number
}

export async function startIdleProxy (t: TestContext, backendPort: number, idleMs: number): Promise<IdleProxy> {
  const open = new Set<Socket>()
  let cut = 0
  const server = createServer((client) => {
    const backend = connect(backendPort, '127.0.0.1')
    open.add(client).add(backend)
    const timer = setTimeout(idle, idleMs)
    function idle (): void {
      cut++
      client.destroy()
      backend.destroy()
    }
    const active = (): void => { timer.refresh() }
    client.on('data', active)
    backend.on('data', active)
    client.pipe(backend)
    backend.pipe(client)
    const close = (): void => {
      clearTimeout(timer)
      client.destroy()
      backend.destroy()
      open.delete(client)
      open.delete(backend)
    }
    client.on('close', close).on('error', close)
    backend.on('close', close).on('error', close)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.after(async () => {
    for (const socket of open) socket.destroy()
    server.close()
  })
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}`, cut: () => cut }
}
