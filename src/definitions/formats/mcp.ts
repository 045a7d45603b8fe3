// One tool as MCP clients list it (tools/list, GET /definitions?format=mcp). Types only from the
// MCP SDK: /definitions loads this module at start, and the SDK is loaded on the first /mcp request.
import type { Tool } from '@modelcontextprotocol/server'
import type { OpenAIFunctionTool } from './shapes.ts'
import { mcpToolAnnotations } from '../../registry/annotations.ts'
import type { ToolEntry } from '../../registry/types.ts'

/**
 * One tool as MCP lists it. The definition carries what the caller sees (dynamic overrides
 * applied); the entry, when the registry still holds it, carries what /definitions does not show:
 * its annotations, as MCP's *Hint names.
 */
export function mcpToolOf (definition: OpenAIFunctionTool, entry: ToolEntry | undefined): Tool {
  const { name, description, parameters } = definition.function
  const tool: Tool = { name, description, inputSchema: parameters as Tool['inputSchema'] }
  const annotations = entry === undefined ? undefined : mcpToolAnnotations(entry)
  if (annotations !== undefined) tool.annotations = annotations
  return tool
}
