// The floors for MCP `tools/call` of read_file: bare Fastify routes that do what any MCP server must
// do for that call and nothing more. Each parses and validates the JSON-RPC body (read_file's own
// parameter schema inside), checks what the revision asks of the headers (2025: the session;
// 2026-07-28: the version, method and name), reads the same file, numbers its lines as read_file
// does, and answers the same JSON-RPC result (same fields, same size) framed as the gateway frames
// it: one Server-Sent Event in a 2025 session, a JSON body in 2026-07-28.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { toolResult } from '../src/registry/tool-result.ts'

/** The session id the benchmark's client sends to this server (the gateway makes its own). */
export const BASELINE_SESSION_ID = '00000000-0000-4000-8000-000000000000'

interface CallBody { jsonrpc: '2.0', id: string | number, method: 'tools/call', params: { name: 'read_file', arguments: { path: string, offset?: number, limit?: number } } }

const callBodySchema = {
  type: 'object',
  properties: {
    jsonrpc: { const: '2.0' },
    id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    method: { const: 'tools/call' },
    params: {
      type: 'object',
      properties: {
        name: { const: 'read_file' },
        // read_file's parameters, as the gateway validates the call's arguments against them.
        arguments: {
          type: 'object',
          properties: { path: { type: 'string' }, offset: { type: 'integer', minimum: 1 }, limit: { type: 'integer', minimum: 1 } },
          required: ['path'],
          additionalProperties: false
        }
      },
      required: ['name', 'arguments']
    }
  },
  required: ['jsonrpc', 'id', 'method', 'params']
}

/** read_file's result for a whole small file read from line 1: the same JSON text the tool returns. */
function readFileResult (path: string, text: string): string {
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return toolResult({
    path,
    content: lines.map((line, i) => `${i + 1}|${line}`).join('\n'),
    offset: 1,
    lines_returned: lines.length,
    total_lines: lines.length,
    size_bytes: Buffer.byteLength(text),
    truncated: false
  })
}

/** Adds POST /mcp, the floor of MCP tools/call read_file, to the floor server. */
export function addMcpBaseline (app: FastifyInstance, workspace: string): void {
  app.post<{ Body: CallBody }>('/mcp', { schema: { body: callBodySchema } }, async (request, reply) => {
    if (request.headers['mcp-session-id'] !== BASELINE_SESSION_ID) return await reply.code(404).send()
    const { path } = request.body.params.arguments
    const text = readFileResult(path, await readFile(join(workspace, path), 'utf8'))
    // A plain success: the gateway sends no _meta outcome either.
    const message = { result: { content: [{ type: 'text', text }], isError: false }, jsonrpc: '2.0', id: request.body.id }
    return await reply
      .header('cache-control', 'no-cache, no-transform')
      .header('mcp-session-id', BASELINE_SESSION_ID)
      .header('x-accel-buffering', 'no')
      .type('text/event-stream')
      .send(`event: message\ndata: ${JSON.stringify(message)}\n\n`)
  })
}

const envelopeSchema = {
  type: 'object',
  properties: {
    'io.modelcontextprotocol/protocolVersion': { const: '2026-07-28' },
    'io.modelcontextprotocol/clientCapabilities': { type: 'object' },
    'io.modelcontextprotocol/clientInfo': { type: 'object', properties: { name: { type: 'string' }, version: { type: 'string' } }, required: ['name', 'version'] }
  },
  required: ['io.modelcontextprotocol/protocolVersion', 'io.modelcontextprotocol/clientCapabilities']
}

const modernCallSchema = {
  ...callBodySchema,
  properties: {
    ...callBodySchema.properties,
    params: {
      ...callBodySchema.properties.params,
      properties: { ...callBodySchema.properties.params.properties, _meta: envelopeSchema },
      required: ['name', 'arguments', '_meta']
    }
  }
}

const modernHeadersSchema = {
  type: 'object',
  properties: { 'mcp-protocol-version': { const: '2026-07-28' }, 'mcp-method': { const: 'tools/call' }, 'mcp-name': { const: 'read_file' } },
  required: ['mcp-protocol-version', 'mcp-method', 'mcp-name']
}

const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'tool-gateway', version: '0.1.0' } }

/**
 * Adds POST /mcp-modern, the floor of a 2026-07-28 tools/call of read_file: the envelope and the
 * standard headers checked against the body (by schema), the same read, and the same JSON answer
 * the gateway sends (resultType, serverInfo), no session.
 */
export function addModernMcpBaseline (app: FastifyInstance, workspace: string): void {
  app.post<{ Body: CallBody }>('/mcp-modern', { schema: { body: modernCallSchema, headers: modernHeadersSchema } }, async (request, reply) => {
    const { path } = request.body.params.arguments
    const text = readFileResult(path, await readFile(join(workspace, path), 'utf8'))
    const message = { jsonrpc: '2.0', id: request.body.id, result: { content: [{ type: 'text', text }], isError: false, resultType: 'complete', _meta: SERVER_INFO } }
    return await reply.type('application/json').send(JSON.stringify(message))
  })
}
