// One trial's servers, started afresh: each is probed once to fail loudly when it does not answer
// what the scenarios expect, and the scenarios are built on them.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Scenario } from './measure.ts'
import { startServer, stopServer, type Server } from './server-process.ts'

const DEFINITION_TOOLS = 500
const ECHO_BODY = JSON.stringify({ text: 'hello from the benchmark' })

export interface Trial { scenarios: Scenario[], servers: Server[], definitionsBytes: number }

/** One request before the load, to fail loudly when a server does not answer what we think. */
async function probe (url: string, init: RequestInit, expectedStatus: number): Promise<Response> {
  const response = await fetch(url, init)
  if (response.status !== expectedStatus) throw new Error(`${url}: expected ${expectedStatus}, got ${response.status}: ${await response.text()}`)
  return response
}

/** Starts the four servers afresh, checks each answers what we think, and builds the scenarios. */
export async function startTrial (scratch: string): Promise<Trial> {
  const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: ECHO_BODY }
  const servers: Server[] = []
  try {
    const bare = await startServer('bare')
    servers.push(bare)
    const dispatch = await startServer('gateway-dispatch')
    servers.push(dispatch)
    const definitions = await startServer('gateway-definitions')
    servers.push(definitions)

    await probe(`${bare.url}/echo`, post, 200)
    const envelope = await (await probe(`${dispatch.url}/dispatch/echo`, post, 200)).json() as { ok: boolean }
    if (envelope.ok !== true) throw new Error(`echo did not succeed: ${JSON.stringify(envelope)}`)
    const fresh = await probe(`${definitions.url}/definitions`, {}, 200)
    const etag = fresh.headers.get('etag') ?? ''
    const contentType = fresh.headers.get('content-type') ?? ''
    const bytes = await fresh.text()
    const definitionsBytes = Buffer.byteLength(bytes)
    if ((JSON.parse(bytes) as unknown[]).length !== DEFINITION_TOOLS || etag === '') {
      throw new Error(`GET /definitions did not answer ${DEFINITION_TOOLS} tools with an ETag`)
    }
    await probe(`${definitions.url}/definitions`, { headers: { 'if-none-match': etag } }, 304)

    // The floor for (c): a static route serving exactly those bytes, with the same content type.
    const file = join(scratch, 'definitions.json')
    await writeFile(file, bytes)
    const staticServer = await startServer('static', [file])
    servers.push(staticServer)
    const same = await probe(`${staticServer.url}/definitions`, {}, 200)
    if (await same.text() !== bytes || same.headers.get('content-type') !== contentType) throw new Error('the static route does not serve the same bytes')

    const scenarios: Scenario[] = [
      { key: 'a', description: 'bare Fastify: POST /echo, same body schema, envelope-sized response', server: bare, options: { url: `${bare.url}/echo`, ...post }, expectedStatus: 200 },
      { key: 'b', description: 'gateway: POST /dispatch/echo, whole pipeline', server: dispatch, options: { url: `${dispatch.url}/dispatch/echo`, ...post }, expectedStatus: 200 },
      { key: 'c0', description: `bare Fastify: static route, the same ${definitionsBytes} bytes`, server: staticServer, options: { url: `${staticServer.url}/definitions` }, expectedStatus: 200 },
      { key: 'c', description: `gateway: GET /definitions, ${DEFINITION_TOOLS} tools`, server: definitions, options: { url: `${definitions.url}/definitions` }, expectedStatus: 200 },
      { key: "c'", description: 'gateway: GET /definitions with If-None-Match (304)', server: definitions, options: { url: `${definitions.url}/definitions`, headers: { 'if-none-match': etag } }, expectedStatus: 304 }
    ]
    return { scenarios, servers, definitionsBytes }
  } catch (err) {
    for (const server of servers) await stopServer(server)
    throw err
  }
}
