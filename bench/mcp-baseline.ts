// The floor for MCP `tools/call` of read_file (scenario d0): a bare Fastify route that does what
// any MCP server must do for that call and nothing more. It parses and validates the JSON-RPC body
// (read_file's own parameter schema inside), checks the session header, reads the same file, numbers
// its lines as read_file does, and answers the same JSON-RPC result (same fields, same size) framed
// as the one Server-Sent Event the gateway's transport sends, with the same headers.
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
