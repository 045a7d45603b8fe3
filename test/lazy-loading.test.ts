// What few deployments use is loaded on first use, not at start (docs/development.md): a child
// process builds the gateway with its built-in tools and reports which npm packages it loaded.
// A new static import of one of these packages on the start-up path fails here.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'

const PROBE = fileURLToPath(new URL('./fixtures/lazy-loading/probe.ts', import.meta.url))

/** Packages a gateway without MCP servers, pages or web calls has no use for. */
const NOT_AT_START = [
  '@modelcontextprotocol/client', '@modelcontextprotocol/server', '@modelcontextprotocol/core', 'zod',
  '@fastify/swagger-ui', '@fastify/static',
  // The OpenAPI document's builder and its YAML writer, until the document is asked for; the config
  // file's reader, without a file; the rate limiter, without a limit.
  '@fastify/swagger', 'yaml', '@fastify/rate-limit',
  'undici', 'linkedom',
  // Node's bundled one, which an ES import of node:http loads (src/http/error-handler.ts).
  'node:internal/deps/undici', 'turndown', '@mozilla/readability',
  'gpt-tokenizer',
  // The patch tool's diff library and worker pool, until its first edit.
  'diff', 'piscina',
  // Discovery parses the tool modules in a child process that exits with the parser's memory.
  'oxc-parser',
  // Tracing, off without an OTLP endpoint: neither the SDK nor the exporter (nor what they bring).
  '@opentelemetry/sdk-trace', '@opentelemetry/core', '@opentelemetry/resources', '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/otlp-exporter-base', '@opentelemetry/otlp-transformer',
  // The Redis client, without REDIS_URL.
  'ioredis'
]

/** What no tool call of an untraced gateway may load (@opentelemetry/api is left to whoever owns its start-up cost). */
const NOT_FOR_A_CALL = NOT_AT_START.filter((name) => name.startsWith('@opentelemetry/'))

interface Probe { started: string[], dispatched: string[], documentation: string[], mcp: string[], statuses: number[] }

async function probe (): Promise<Probe> {
  const { stdout } = await promisify(execFile)(process.execPath, [PROBE], { timeout: 60_000 })
  return JSON.parse(stdout) as Probe
}

test('a started gateway has loaded none of what only MCP, Swagger UI, web calls, token counts, tracing or the discovery parser use; each loads with its first use, and an untraced call loads nothing of tracing', async () => {
  const { started, dispatched, documentation, mcp, statuses } = await probe()
  // The hook saw the packages that start-up does need: it works.
  for (const name of ['fastify', 'pino']) assert.ok(started.includes(name), `${name} is loaded at start`)
  for (const name of NOT_AT_START) assert.ok(!started.includes(name), `${name} is loaded at start`)

  assert.equal(statuses[2], 200, 'the tool call')
  for (const name of NOT_FOR_A_CALL) assert.ok(!dispatched.includes(name), `${name} is loaded by a call without tracing configured`)

  assert.equal(statuses[0], 200, 'the Swagger UI page')
  assert.ok(documentation.includes('@fastify/swagger-ui'), 'Swagger UI loads with the first /documentation page')
  assert.ok(documentation.includes('@fastify/swagger'), 'the OpenAPI document is built for the first /documentation page')
  assert.ok(!documentation.includes('@modelcontextprotocol/server'))

  assert.equal(statuses[1], 200, 'the MCP initialize')
  assert.ok(mcp.includes('@modelcontextprotocol/server'), 'the MCP server SDK loads with the first /mcp request')
  assert.ok(!mcp.includes('@modelcontextprotocol/client'), 'the client SDK stays unloaded without MCP servers')
})
