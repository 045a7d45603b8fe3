// The schema of one configured MCP server (mcpServers.<name>), over stdio or Streamable HTTP, and
// the revisions it may be spoken to in. Part of the gateway configuration (schema.ts).
import { Type } from 'typebox'

const ToolFilter = Type.Object({
  include: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'Raw MCP tool names to keep (wins over exclude).' })),
  exclude: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'Raw MCP tool names to leave out.' }))
}, { additionalProperties: false, description: 'Which of the server\'s tools to register.' })

// The MCP revisions an upstream may be pinned to: the modern one the client SDK negotiates through
// server/discover, then its 2025-era initialize list (SUPPORTED_PROTOCOL_VERSIONS; a test keeps the
// two lists alike). Written out here so that loading the config never loads the SDK.
export const MCP_PROTOCOL_SETTINGS = ['auto', '2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'] as const

const McpCommon = {
  protocol: Type.Optional(Type.Enum([...MCP_PROTOCOL_SETTINGS], {
    description: 'The MCP revision spoken with this server. auto (default): ask it with server/discover (2026-07-28) and fall back to the 2025 initialize handshake when it does not answer as a 2026-07-28 server; the verdict is kept for its reconnects. 2026-07-28: that revision only (no fallback). A 2025-era revision (2025-11-25, 2025-06-18, ...): the initialize handshake offering exactly that revision, without asking server/discover; a server that answers with another revision (or only speaks 2026-07-28) fails to connect, saying which it speaks.'
  })),
  enabled: Type.Optional(Type.Boolean({ description: 'false = configured but not started.' })),
  timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Deadline of one tool call (default 60 000).' })),
  connectTimeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'How long readiness waits for this server at start (default 10 000).' })),
  maxMessageBytes: Type.Optional(Type.Integer({ minimum: 1024, description: 'Largest message of this server, decoded, replacing mcp.upstreamMaxMessageBytes.' })),
  tools: Type.Optional(ToolFilter)
}

export const McpStdioServerSchema = Type.Object({
  command: Type.String({ minLength: 1, description: 'Program to start (stdio transport).' }),
  args: Type.Optional(Type.Array(Type.String(), { description: 'Its arguments.' })),
  env: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Environment added to the minimal one the child gets.' })),
  cwd: Type.Optional(Type.String({ minLength: 1, description: 'Working folder of the child.' })),
  ...McpCommon
}, { additionalProperties: false, description: 'An MCP server started as a child process, spoken to over stdio.' })

export const McpHttpServerSchema = Type.Object({
  url: Type.String({ pattern: '^https?://', description: 'Streamable HTTP endpoint of the server.' }),
  headers: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Headers sent with every request (e.g. Authorization).' })),
  auth: Type.Optional(Type.Object({
    tokenExchange: Type.Object({
      audience: Type.String({ minLength: 1, description: 'The server as the identity provider knows it: the audience its tokens must name.' }),
      scope: Type.Optional(Type.String({ minLength: 1, description: 'Scopes to ask for, space-separated.' }))
    }, { additionalProperties: false, description: 'Each call carries the caller\'s own identity: the caller\'s access token is exchanged at auth.oauth.issuer (RFC 8693) for one addressed to this server, and sent as Authorization of that call. Calls made with an API key, which carries no user, fail saying so.' })
  }, { additionalProperties: false, description: 'How calls to this server are authorised beyond `headers`.' })),
  ...McpCommon
}, { additionalProperties: false, description: 'An MCP server reached over Streamable HTTP.' })
