// One trial's servers, started afresh: each is probed once to fail loudly when it does not answer
// what the scenarios expect, and the scenarios of the selected groups are built on them.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Scenario } from './measure.ts'
import { readFileScenarios, toolsListScenarios } from './mcp-trial.ts'
import type { Server } from './server-process.ts'
import type { ScenarioGroup } from './settings.ts'
import { DEFINITION_TOOLS, probe, TrialServers, type Sizes } from './trial-servers.ts'

const ECHO_BODY = JSON.stringify({ text: 'hello from the benchmark' })

export interface Trial { scenarios: Scenario[], servers: Server[], sizes: Sizes }

/** (a) bare Fastify echo and (b) the gateway's dispatch of an echo tool. */
async function echoScenarios (servers: TrialServers): Promise<Scenario[]> {
  const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: ECHO_BODY }
  const bare = await servers.get('bare')
  const dispatch = await servers.get('gateway-dispatch')
  await probe(`${bare.url}/echo`, post, 200)
  const envelope = await (await probe(`${dispatch.url}/dispatch/echo`, post, 200)).json() as { ok: boolean }
  if (envelope.ok !== true) throw new Error(`echo did not succeed: ${JSON.stringify(envelope)}`)
  return [
    { key: 'a', description: 'bare Fastify: POST /echo, same body schema, envelope-sized response', server: bare, options: { url: `${bare.url}/echo`, ...post }, expectedStatus: 200 },
    { key: 'b', description: 'gateway: POST /dispatch/echo, whole pipeline', server: dispatch, options: { url: `${dispatch.url}/dispatch/echo`, ...post }, expectedStatus: 200 }
  ]
}

/** (c) GET /definitions of 500 tools, (c') its 304, and (c0) a static route of the same bytes. */
async function definitionsScenarios (servers: TrialServers, sizes: Sizes): Promise<Scenario[]> {
  const definitions = await servers.get('gateway-definitions')
  const fresh = await probe(`${definitions.url}/definitions`, {}, 200)
  const etag = fresh.headers.get('etag') ?? ''
  const contentType = fresh.headers.get('content-type') ?? ''
  const bytes = await fresh.text()
  sizes.definitionsBytes = Buffer.byteLength(bytes)
  if ((JSON.parse(bytes) as unknown[]).length !== DEFINITION_TOOLS || etag === '') {
    throw new Error(`GET /definitions did not answer ${DEFINITION_TOOLS} tools with an ETag`)
  }
  await probe(`${definitions.url}/definitions`, { headers: { 'if-none-match': etag } }, 304)

  // The floor for (c): a static route serving exactly those bytes, with the same content type.
  const file = join(servers.scratch, 'definitions.json')
  await writeFile(file, bytes)
  const staticServer = await servers.get('static', [file, contentType, 'GET', '/definitions'])
  const same = await probe(`${staticServer.url}/definitions`, {}, 200)
  if (await same.text() !== bytes || same.headers.get('content-type') !== contentType) throw new Error('the static route does not serve the same bytes')
  return [
    { key: 'c0', description: `bare Fastify: static route, the same ${sizes.definitionsBytes} bytes`, server: staticServer, options: { url: `${staticServer.url}/definitions` }, expectedStatus: 200 },
    { key: 'c', description: `gateway: GET /definitions, ${DEFINITION_TOOLS} tools`, server: definitions, options: { url: `${definitions.url}/definitions` }, expectedStatus: 200 },
    { key: "c'", description: 'gateway: GET /definitions with If-None-Match (304)', server: definitions, options: { url: `${definitions.url}/definitions`, headers: { 'if-none-match': etag } }, expectedStatus: 304 }
  ]
}

/** Starts the servers of the selected groups afresh, checks each answers what we think, and builds the scenarios. */
export async function startTrial (scratch: string, groups: readonly ScenarioGroup[]): Promise<Trial> {
  const servers = new TrialServers(scratch)
  const sizes: Sizes = {}
  try {
    const scenarios: Scenario[] = []
    if (groups.includes('echo')) scenarios.push(...await echoScenarios(servers))
    if (groups.includes('definitions')) scenarios.push(...await definitionsScenarios(servers, sizes))
    if (groups.includes('mcp-call')) scenarios.push(...await readFileScenarios(servers, sizes))
    if (groups.includes('mcp-list')) scenarios.push(...await toolsListScenarios(servers, sizes))
    return { scenarios, servers: await servers.all(), sizes }
  } catch (err) {
    await servers.stopAll()
    throw err
  }
}
