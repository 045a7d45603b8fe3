// The type of a JSON Schema document as plain data, below every module that reads one (the
// registry, the configuration, coercion and validation), so that none of them imports another for it.

/** A JSON Schema document, as plain data. Schemas from MCP servers are untrusted input. */
export type JsonSchema = Record<string, unknown>
