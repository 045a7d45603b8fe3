// A real gateway on loopback for the trust tests: one upstream MCP server "up", API keys `operator`
// (every toolset) and `limited` (the toolset mcp-up only), the trust settings of the test, its state
// folder in a temp folder; and what the tests read of it: /tools, /definitions, /mcp tools/list.
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app/app.ts'
import { createLogger } from '../../src/app/logger.ts'
import { loadConfig } from '../../src/config/load.ts'
import { captureLogger, type CapturedLogger } from '../helpers/logger.ts'

export const OPERATOR = 'operator-key-4d3c2b1a'
export const LIMITED = 'limited-key-a1b2c3d4'
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')

export interface TrustGateway {
  app: FastifyInstance
  base: string
  log: CapturedLogger
  dir: string
}

/** Starts a gateway with upstream `url` as "up"; `env` adds variables (TRUST_*, STATE_DIR, ...). */
export async function trustGateway (t: TestContext, url: string, env: Record<string, string> = {}, extra: object = {}): Promise<TrustGateway> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-trust-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await mkdir(join(dir, 'no-tools'))
  const file = join(dir, 'gateway.json')
  await writeFile(file, JSON.stringify({
    auth: { keys: [{ name: 'operator', sha256: sha256(OPERATOR) }, { name: 'limited', sha256: sha256(LIMITED), toolsets: ['mcp-up'] }] },
    mcpServers: { up: { url, connectTimeoutMs: 10_000 } },
    availability: { ttlMs: 1, graceMs: 0 },
    ...extra
  }))
  const fullEnv = { GATEWAY_CONFIG: file, TOOLS_DIR: join(dir, 'no-tools'), WORKSPACE_ROOT: join(dir, 'workspace'), LOG_LEVEL: 'info', ...env }
  const config = await loadConfig({ env: fullEnv, cwd: dir })
  const log = captureLogger('info')
  const app = await buildApp(config, { logger: createLogger(config, log.stream), env: fullEnv })
  t.after(() => app.close())
  const address = await app.listen({ host: '127.0.0.1', port: 0 })
  return { app, base: address, log, dir }
}

export async function getJson (gateway: TrustGateway, path: string, key = OPERATOR): Promise<any> {
  const reply = await gateway.app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${key}` } })
  return reply.json()
}

/** The tool's entry of GET /tools. */
export async function toolStatus (gateway: TrustGateway, name: string): Promise<any> {
  // undefined while /tools does not answer its list (a 503 under load): the callers poll.
  return (await getJson(gateway, '/tools')).tools?.find((tool: { name: string }) => tool.name === name)
}

/** The chat-format entries of GET /definitions, by name. */
export async function definitions (gateway: TrustGateway): Promise<Map<string, any>> {
  const body = await getJson(gateway, '/definitions')
  const tools: any[] = Array.isArray(body) ? body : body.tools
  return new Map(tools.map((tool) => [tool.function.name, tool.function]))
}

export async function approve (gateway: TrustGateway, name: string, key = OPERATOR): Promise<{ status: number, body: any }> {
  const reply = await gateway.app.inject({ method: 'POST', url: `/admin/tools/${encodeURIComponent(name)}/approve`, headers: { authorization: `Bearer ${key}` } })
  return { status: reply.statusCode, body: reply.json() }
}

/** tools/list over /mcp with the SDK 2.4 client in `revision`. */
export async function mcpTools (t: TestContext, gateway: TrustGateway, revision: '2026-07-28' | 'legacy'): Promise<Array<{ name: string, description?: string, inputSchema: any }>> {
  const client = new Client({ name: 'trust-test', version: '1' }, { versionNegotiation: { mode: revision === 'legacy' ? 'legacy' : { pin: '2026-07-28' } } })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${OPERATOR}` } } }))
  t.after(() => client.close())
  return (await client.listTools()).tools
}

/** Polls `condition` every 50 ms until it holds; fails naming `what` after `boundMs`. */
export async function eventually (condition: () => Promise<boolean>, what: string, boundMs = 10_000): Promise<void> {
  const end = Date.now() + boundMs
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
