// The description a model reads for an MCP tool: its title and description as the server gave
// them, never empty, and bounded (a server's text is not ours to let grow without end).
import type { Tool } from '@modelcontextprotocol/client'

const MAX_DESCRIPTION_CHARS = 8_000

export function describeTool (server: string, tool: Tool): string {
  const title = typeof tool.title === 'string' ? tool.title : typeof tool.annotations?.title === 'string' ? tool.annotations.title : ''
  const description = typeof tool.description === 'string' ? tool.description.trim() : ''
  let text = title && !description.startsWith(title) ? (description ? `${title}: ${description}` : title) : description
  if (text === '') text = `Tool "${tool.name}" of MCP server "${server}".`
  return text.length > MAX_DESCRIPTION_CHARS ? `${text.slice(0, MAX_DESCRIPTION_CHARS)}…` : text
}
