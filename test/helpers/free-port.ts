// A port free right now on 127.0.0.1, for a server that must be told its port (redis-server, the
// gateway's PORT in the benchmark). Another process could take it before it is used: only for loopback tests.
import { once } from 'node:events'
import { createServer } from 'node:net'

export async function freePort (): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  server.close()
  await once(server, 'close')
  return port
}
