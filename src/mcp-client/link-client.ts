// The SDK transport and client one link speaks through, as the gateway sets them up: a stdio child
// or Streamable HTTP through the gateway's own fetch, and a client that declares what the gateway's
// callers may be asked (client-capabilities.ts), checks no output schema, and hands every
// input_required answer back to the call that got it.
import { Client, StreamableHTTPClientTransport, type FetchLike } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import type { McpServerConfig } from '../config/schema.ts'
import { GATEWAY_IDENTITY } from '../shared/version.ts'
import { GATEWAY_CLIENT_CAPABILITIES } from './client-capabilities.ts'
import { negotiationOptions, type ProtocolSetting } from './protocol.ts'
import { childEnvironment } from './stdio-child.ts'

// Output schemas are not checked here (the model reads the result either way), so none of a
// server's schemas is ever compiled into code by the client.
const NO_OUTPUT_VALIDATION = {
  getValidator: () => (input: unknown) => ({ valid: true as const, data: input as never, errorMessage: undefined })
}

export function createTransport (config: McpServerConfig, fetch: FetchLike): StdioClientTransport | StreamableHTTPClientTransport {
  if ('command' in config) {
    return new StdioClientTransport({
      command: config.command,
      args: config.args ?? [],
      env: childEnvironment(config.env),
      cwd: config.cwd,
      stderr: 'pipe'
    })
  }
  return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: { ...config.headers } }, fetch })
}

/**
 * The client. Its input_required answers come back to the call that made the request
 * (allowInputRequired, tool-call-rounds.ts), never to client-wide handlers, which cannot know whose
 * caller to ask: a request without that option fails on one instead of guessing.
 */
export function createClient (protocol: ProtocolSetting): Client {
  return new Client({ ...GATEWAY_IDENTITY }, {
    capabilities: structuredClone(GATEWAY_CLIENT_CAPABILITIES),
    inputRequired: { autoFulfill: false },
    jsonSchemaValidator: NO_OUTPUT_VALIDATION,
    ...negotiationOptions(protocol)
  })
}
