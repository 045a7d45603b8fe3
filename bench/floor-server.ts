// The floor: one bare Fastify server doing the work of each gateway scenario and nothing more, in a
// child process of its own like the gateway (`node dist/bench/bench/floor-server.js <spec JSON>`,
// compiled by bench/run.ts). Each route validates its body against the tool's own parameter schema,
// does the tool's work (floor-files.ts) and answers the same envelope through a response schema, so
// both servers parse, validate and serialise the same shapes. It listens on 127.0.0.1, port 0, sends
// its port to the parent over IPC, and exits cleanly on 'stop' (so --cpu-prof can write).
import { readFile } from 'node:fs/promises'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import pino from 'pino'
import { readFileResult, searchFilesResult, writeFileResult } from './floor-files.ts'
import { addMcpBaseline, addModernMcpBaseline } from './mcp-baseline.ts'

export interface FloorSpec {
  workspace: string
  /** Routes answering fixed bytes, as a static file server sends them. */
  statics: Array<{ file: string, contentType: string, method: string, url: string }>
  mcp: boolean
  /** The Redis of the replicas' scenario: /write_file-shared does there what a replica does. */
  redisUrl?: string
}

const logLevel = process.env.LOG_LEVEL ?? 'warn'
// The gateway's own parser settings, so the floor validates the same way.
const ajv = { customOptions: { coerceTypes: false as const, removeAdditional: false as const } }
const CALL_ID = 'call_00000000-0000-0000-0000-000000000000'

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

const string = { type: 'string' }
const count = { type: 'integer', minimum: 1 }
/** Each tool's parameters as the gateway validates them (the route's body schema here). */
const PARAMETERS: Record<string, object> = {
  echo: { type: 'object', properties: { text: string }, required: ['text'] },
  read_file: { type: 'object', properties: { path: string, offset: count, limit: count }, required: ['path'], additionalProperties: false },
  write_file: { type: 'object', properties: { path: string, content: string }, required: ['path', 'content'], additionalProperties: false },
  search_files: { type: 'object', properties: { pattern: string, path: string }, required: ['pattern'], additionalProperties: false }
}

function envelope (tool: string, content: string, callId = CALL_ID): Record<string, unknown> {
  return { tool, callId, ok: true, status: 'ok', content, truncated: false, originalLength: content.length, durationMs: 0 }
}

type Args = Record<string, unknown>
type Work = (args: Args) => Promise<string>

function toolRoutes (app: FastifyInstance, workspace: string): Record<string, Work> {
  const work: Record<string, Work> = {
    echo: async (args) => JSON.stringify({ text: args.text }),
    read_file: async (args) => await readFileResult(workspace, args.path as string, args.offset as number | undefined, args.limit as number | undefined),
    write_file: async (args) => await writeFileResult(workspace, args.path as string, args.content as string),
    search_files: async (args) => await searchFilesResult(workspace, (args.path as string | undefined) ?? '.', args.pattern as string)
  }
  for (const [tool, run] of Object.entries(work)) {
    app.post<{ Body: Args }>(`/${tool}`, { schema: { body: PARAMETERS[tool], response: { 200: envelopeSchema } } }, async (request) =>
      envelope(tool, await run(request.body)))
  }
  return work
}

const batchSchema = {
  body: {
    type: 'object',
    properties: {
      tool_calls: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          properties: { id: string, type: { const: 'function' }, function: { type: 'object', properties: { name: string, arguments: string }, required: ['name'] } },
          required: ['id', 'function']
        }
      }
    },
    required: ['tool_calls']
  },
  response: {
    200: {
      type: 'object',
      properties: {
        messages: { type: 'array', items: { type: 'object', properties: { role: string, tool_call_id: string, content: string } } },
        results: { type: 'array', items: envelopeSchema }
      }
    }
  }
}

interface ChatCall { id: string, function: { name: string, arguments: string } }

/** A Chat Completions batch of read_file calls, read concurrently, answered as the gateway does. */
function batchRoute (app: FastifyInstance, work: Record<string, Work>): void {
  app.post<{ Body: { tool_calls: ChatCall[] } }>('/batch', { schema: batchSchema }, async (request) => {
    const calls = request.body.tool_calls
    const contents = await Promise.all(calls.map(async (call) => await work.read_file(JSON.parse(call.function.arguments) as Args)))
    return {
      messages: calls.map((call, i) => ({ role: 'tool', tool_call_id: call.id, content: contents[i] })),
      results: calls.map((call, i) => envelope(call.function.name, contents[i], call.id))
    }
  })
}

// A fixed-window counter as @fastify/rate-limit's Redis store keeps it (one script call per request).
const RATE_LIMIT_SCRIPT = "local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return {n, redis.call('PTTL', KEYS[1])}"

/**
 * write_file as a replica with Redis runs it: the caller's shared rate-limit counter, the claim of
 * its Idempotency-Key (SET NX with a lease), the write, then the answer kept under the key.
 */
function sharedWriteRoute (app: FastifyInstance, workspace: string, redis: Redis): void {
  const headers = { type: 'object', properties: { 'idempotency-key': string }, required: ['idempotency-key'] }
  app.post<{ Body: Args, Headers: { 'idempotency-key': string } }>('/write_file-shared', { schema: { body: PARAMETERS.write_file, headers, response: { 200: envelopeSchema } } }, async (request) => {
    await redis.eval(RATE_LIMIT_SCRIPT, 1, `rate-limit:ip:${request.ip}`, 60_000)
    const key = `idempotency:${request.headers['idempotency-key']}`
    if (await redis.set(key, '{"state":"running"}', 'PX', 15_000, 'NX') !== 'OK') throw new Error(`key ${key} used twice`)
    const answer = envelope('write_file', await writeFileResult(workspace, request.body.path as string, request.body.content as string))
    await redis.set(key, JSON.stringify({ state: 'done', answer }), 'PX', 86_400_000)
    return answer
  })
}

async function floorApp (spec: FloorSpec): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: pino({ level: logLevel }) as FastifyBaseLogger, ajv })
  batchRoute(app, toolRoutes(app, spec.workspace))
  // The gateway's liveness answer, polled on both sides during the read_file loads: the floor's
  // latency tells what the machine and the bench process add, the gateway's what its work adds.
  app.get('/healthz', async () => ({ status: 'ok' }))
  for (const { file, contentType, method, url } of spec.statics) {
    const body = await readFile(file)
    app.route({ method, url, handler: async (_request, reply) => reply.type(contentType).send(body) })
  }
  if (spec.mcp) {
    addMcpBaseline(app, spec.workspace)
    addModernMcpBaseline(app, spec.workspace)
  }
  if (spec.redisUrl !== undefined) {
    const redis = new Redis(spec.redisUrl, { keyPrefix: 'bench-floor:' })
    app.addHook('onClose', async () => { redis.disconnect() })
    sharedWriteRoute(app, spec.workspace, redis)
  }
  return app
}

async function main (): Promise<void> {
  const app = await floorApp(JSON.parse(process.argv[2]) as FloorSpec)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no TCP address')
  process.on('message', (message) => {
    if (message !== 'stop') return
    app.close().then(() => process.exit(0), (err: unknown) => {
      process.stderr.write(`bench floor server: close failed: ${String(err)}\n`)
      process.exit(1)
    })
  })
  process.send?.({ port: address.port })
}

await main()
