// A gateway signing users in with a real identity provider (test/helpers/oidc-provider.ts), both on
// loopback: the provider knows the gateway's /mcp URL as the resource its tokens are for, so the
// gateway listens on a port chosen first. Scopes and groups map to toolsets as an operator would.
import { createHash } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, type TestApp } from '../helpers/app.ts'
import { freePort } from '../helpers/free-port.ts'
import { startIdentityProvider, type IdentityProvider, type IdentityProviderOptions } from '../helpers/oidc-provider.ts'
import { fixtureTool } from '../helpers/tools.ts'

interface TestContext { after: (fn: () => Promise<void> | void) => void }

export const API_KEY = 'ops-key-0123456789'

export interface SignInGateway extends TestApp {
  idp: IdentityProvider
  /** http://127.0.0.1:<port> */
  base: string
  /** The resource tokens are for: `${base}/mcp`. */
  resource: string
  app: FastifyInstance
}

export interface SignInOptions {
  /** Merged into auth.oauth of the gateway's config. */
  oauth?: Record<string, unknown>
  /** More config of the gateway. */
  config?: Record<string, unknown>
  idp?: Partial<IdentityProviderOptions>
  env?: Record<string, string>
}

/** The three toolsets the tests look at, one fixture tool each. */
export function registerFixtures (app: FastifyInstance): void {
  for (const [name, toolset] of [['read_notes', 'file'], ['search_web', 'web'], ['run_shell', 'terminal']] as const) {
    app.gateway.registry.register(fixtureTool(name, { toolset }))
  }
}

export async function signInGateway (t: TestContext, options: SignInOptions = {}): Promise<SignInGateway> {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const resource = `${base}/mcp`
  const idp = await startIdentityProvider(t, { resource, ...options.idp })
  const dir = await mkdtemp(join(tmpdir(), 'gw-oauth-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'gateway.json')
  await writeFile(file, JSON.stringify({
    auth: {
      keys: [{ name: 'ops', sha256: createHash('sha256').update(API_KEY).digest('hex') }],
      oauth: {
        issuer: idp.issuer,
        resource,
        client: idp.gatewayClient,
        scopes: { 'tools:file': ['file'], 'tools:web': ['web'], 'tools:all': ['all'] },
        claims: { groups: { eng: ['file', 'web'] } },
        requestTimeoutMs: 1000,
        jwksCooldownMs: 1000,
        ...options.oauth
      }
    },
    ...options.config
  }))
  const gateway = await buildTestApp(t, { GATEWAY_CONFIG: file, ...options.env })
  registerFixtures(gateway.app)
  await gateway.app.listen({ host: '127.0.0.1', port })
  return { ...gateway, idp, base, resource }
}

export async function get (gateway: { base: string }, path: string, token?: string): Promise<{ status: number, headers: Headers, body: any }> {
  const response = await fetch(`${gateway.base}${path}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) })
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) }
}

export async function dispatch (gateway: { base: string }, tool: string, token: string | undefined, args: object = {}): Promise<{ status: number, headers: Headers, body: any }> {
  const response = await fetch(`${gateway.base}/dispatch/${tool}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    body: JSON.stringify(args),
    signal: AbortSignal.timeout(10_000)
  })
  return { status: response.status, headers: response.headers, body: await response.json() }
}

/** Tool names of /definitions for the bearer of `token`. */
export async function toolsOf (gateway: { base: string }, token: string): Promise<string[]> {
  const answer = await get(gateway, '/definitions', token)
  if (answer.status !== 200) throw new Error(`/definitions answered ${answer.status}: ${JSON.stringify(answer.body)}`)
  return (answer.body as Array<{ function: { name: string } }>).map((tool) => tool.function.name).sort()
}
