// The benchmark's servers, one scenario per child process so each gets the same conditions:
// `node dist/bench/bench/servers.js <scenario> [arguments]` (compiled by bench/run.ts) listens on 127.0.0.1, port 0,
// sends its port to the parent over IPC, and exits cleanly on 'stop' (so --cpu-prof can write).
import { mkdtemp, mkdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import pino from 'pino'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config/load.ts'
import type { RegisterOptions } from '../src/registry/types.ts'
import { toolResult } from '../src/registry/tool-result.ts'
import { mcpBaselineApp } from './mcp-baseline.ts'

const SCENARIO_SERVERS = ['bare', 'gateway-dispatch', 'gateway-definitions', 'gateway-tools <workspace>', 'bare-mcp <workspace>', 'static <file> <content-type> <method> <url>']
const DEFINITION_TOOLS = 500

const logLevel = process.env.LOG_LEVEL ?? 'warn'
// The gateway's own parser settings, so the baseline validates the same way.
const ajvOptions = { customOptions: { coerceTypes: false as const, removeAdditional: false as const } }

/** The echo tool's parameters, also the bare route's body schema. */
const echoParameters = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }

/** Same fields as the dispatch envelope, so both servers serialise a response of the same shape. */
const envelopeSchema = {
  type: 'object',
  properties: {
    tool: { type: 'string' },
    callId: { type: 'string' },
    ok: { type: 'boolean' },
    status: { type: 'string' },
    content: { type: 'string' },
    truncated: { type: 'boolean' },
    originalLength: { type: 'integer' },
    durationMs: { type: 'integer' }
  }
}

const VERBS = ['list', 'get', 'create', 'update', 'delete', 'search', 'sync', 'export', 'import', 'check']
const NOUNS = ['issues', 'files', 'users', 'events', 'notes', 'tickets', 'builds', 'deploys', 'reports', 'alerts']

/** A deterministic, realistic small tool: 2 to 5 described parameters, some enums, bounds and required ones. */
function definitionTool (i: number): RegisterOptions {
  const verb = VERBS[i % VERBS.length]
  const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length]
  const name = `${verb}_${noun}_${String(i).padStart(3, '0')}`
  const properties: Record<string, unknown> = {
    query: { type: 'string', description: `Text to match against the ${noun}.` },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Most results returned.' }
  }
  if (i % 2 === 0) properties.order = { type: 'string', enum: ['asc', 'desc'], description: 'Sort order by creation time.' }
  if (i % 3 === 0) properties.tags = { type: 'array', items: { type: 'string' }, description: 'Only items carrying all these tags.' }
  if (i % 5 === 0) properties.include_archived = { type: 'boolean', description: 'Also return archived items.' }
  return {
    name,
    toolset: `bench_${i % 20}`,
    schema: {
      description: `${verb[0].toUpperCase()}${verb.slice(1)} ${noun} in the project tracker; returns JSON with an id and title per item.`,
      parameters: { type: 'object', properties, required: ['query'], additionalProperties: false }
    },
    handler: async (args) => toolResult({ name, args })
  }
}

/** The gateway with no tool (the scenario registers its own), or with its built-in tools and this workspace. */
async function gatewayApp (workspace?: string): Promise<{ app: FastifyInstance, dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-bench-'))
  const env: Record<string, string> = { WORKSPACE_ROOT: workspace ?? join(dir, 'workspace'), LOG_LEVEL: logLevel }
  if (workspace === undefined) {
    env.TOOLS_DIR = join(dir, 'no-tools')
    await mkdir(env.TOOLS_DIR)
  }
  const config = await loadConfig({ env, cwd: dir })
  return { app: await buildApp(config), dir }
}

async function bareApp (): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: pino({ level: logLevel }) as FastifyBaseLogger, ajv: ajvOptions })
  app.post<{ Body: { text: string } }>('/echo', {
    schema: { body: echoParameters, response: { 200: envelopeSchema } }
  }, async (request) => {
    const content = toolResult({ text: request.body.text })
    return {
      tool: 'echo',
      callId: 'call_00000000-0000-0000-0000-000000000000',
      ok: true,
      status: 'ok',
      content,
      truncated: false,
      originalLength: content.length,
      durationMs: 0
    }
  })
  return app
}

async function staticApp (file: string, contentType: string, method: string, url: string): Promise<FastifyInstance> {
  // Bytes, as a static file server sends them (and as the gateway sends its cached definitions).
  const body = await readFile(file)
  const app = Fastify({ loggerInstance: pino({ level: logLevel }) as FastifyBaseLogger, ajv: ajvOptions })
  app.route({ method, url, handler: async (_request, reply) => reply.type(contentType).send(body) })
  return app
}

function required (scenario: string, args: string[], count: number): string[] {
  if (args.length < count) throw new Error(`the ${scenario} server needs ${count} arguments (got ${args.length}); valid: ${SCENARIO_SERVERS.join(', ')}`)
  return args
}

async function start (scenario: string, args: string[]): Promise<{ app: FastifyInstance, cleanup: () => Promise<void> }> {
  const nothing = async (): Promise<void> => {}
  if (scenario === 'bare') return { app: await bareApp(), cleanup: nothing }
  if (scenario === 'static') {
    const [file, contentType, method, url] = required(scenario, args, 4)
    return { app: await staticApp(file, contentType, method, url), cleanup: nothing }
  }
  if (scenario === 'bare-mcp') return { app: mcpBaselineApp(required(scenario, args, 1)[0], logLevel, ajvOptions), cleanup: nothing }
  if (scenario === 'gateway-tools') {
    const { app, dir } = await gatewayApp(required(scenario, args, 1)[0])
    return { app, cleanup: () => rm(dir, { recursive: true, force: true }) }
  }
  if (scenario !== 'gateway-dispatch' && scenario !== 'gateway-definitions') {
    throw new Error(`unknown scenario "${scenario}"; valid: ${SCENARIO_SERVERS.join(', ')}`)
  }
  const { app, dir } = await gatewayApp()
  if (scenario === 'gateway-dispatch') {
    app.gateway.registry.register({
      name: 'echo',
      toolset: 'bench',
      schema: { parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
      handler: async (args) => toolResult({ text: args.text })
    })
  } else {
    for (let i = 0; i < DEFINITION_TOOLS; i++) app.gateway.registry.register(definitionTool(i))
  }
  return { app, cleanup: () => rm(dir, { recursive: true, force: true }) }
}

async function main (): Promise<void> {
  const [scenario, ...args] = process.argv.slice(2)
  const { app, cleanup } = await start(scenario, args)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no TCP address')
  process.on('message', (message) => {
    // The parent reads our CPU time around its measurement: server CPU per request is the fair
    // comparison when the load generator, not the server, is the bottleneck.
    if (message === 'cpu') {
      process.send?.({ cpu: process.cpuUsage() })
      return
    }
    if (message !== 'stop') return
    app.close().then(cleanup).then(() => process.exit(0), (err: unknown) => {
      process.stderr.write(`bench server ${scenario}: close failed: ${String(err)}\n`)
      process.exit(1)
    })
  })
  process.send?.({ port: address.port })
}

await main()
