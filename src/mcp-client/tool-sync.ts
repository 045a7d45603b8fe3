// What one synchronisation of an MCP server's tools with the registry works on and reports.
import type { JsonSchema, ToolAnnotations, ToolHandler } from '../registry/types.ts'
import type { LeftOutTool } from './tool-list.ts'

export interface SyncReport {
  added: string[]
  updated: string[]
  removed: string[]
  skipped: LeftOutTool[]
}

export interface Desired {
  name: string
  /** The MCP tool name, or `#utility` for the resource and prompt helpers. */
  raw: string
  description: string
  parameters: JsonSchema
  handler: ToolHandler
  /** The hints the server gave, under the gateway's names. */
  annotations: ToolAnnotations
  fingerprint: string
  /** Checks of its schema that were dropped (see src/json-schema/keywords.ts), for operators. */
  warnings: readonly string[]
  /** Why it is held back until an operator approves it (src/trust); absent when it is served. */
  held?: string
}

/** A check left out of a served tool's schema, as /tools shows it. */
export interface SchemaWarning {
  tool: string
  warning: string
}
