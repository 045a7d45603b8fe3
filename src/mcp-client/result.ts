// Turns what an MCP server answers (a tools/call result, resource contents, prompt messages) into
// what a tool handler returns. Text is kept, structured content becomes JSON, images and audio of a
// tool result are handed on as media (the dispatcher checks them and names each in the text), every
// other block is summarised in one line, and nothing is dropped without a trace.
import { isErrorResult, toolError } from '../registry/tool-result.ts'
import { isRecord } from '../shared/objects.ts'
import type { ToolMedia } from '../registry/types.ts'

export interface MappedResult {
  content: string
  isError: boolean
  /** The image and audio blocks of a successful result, unchecked (the dispatcher checks them). */
  media?: ToolMedia[]
}

function isMediaBlock (block: unknown): block is { type: 'image' | 'audio', mimeType?: unknown, data?: unknown } {
  return isRecord(block) && (block.type === 'image' || block.type === 'audio')
}

const MAX_LABEL_CHARS = 200

/** A server-chosen string shown inside a summary: one line, bounded. */
function label (value: unknown, fallback: string): string {
  if (typeof value !== 'string' || value === '') return fallback
  const line = value.replace(/\s+/g, ' ')
  return line.length > MAX_LABEL_CHARS ? `${line.slice(0, MAX_LABEL_CHARS)}…` : line
}

/** Decoded size of base64 data, without decoding it. */
function base64Bytes (data: unknown): number {
  if (typeof data !== 'string') return 0
  const trimmed = data.replace(/\s+/g, '')
  const padding = trimmed.endsWith('==') ? 2 : trimmed.endsWith('=') ? 1 : 0
  return Math.max(0, Math.floor(trimmed.length * 3 / 4) - padding)
}

/** One embedded resource (`{ uri, mimeType, text }` or `{ uri, mimeType, blob }`) as text. */
export function describeResourceContents (contents: unknown): string {
  if (!isRecord(contents)) return '[resource: malformed contents]'
  const uri = label(contents.uri, 'unknown uri')
  const mime = typeof contents.mimeType === 'string' ? `, ${label(contents.mimeType, '')}` : ''
  if (typeof contents.text === 'string') return `[resource: ${uri}${mime}]\n${contents.text}`
  if (typeof contents.blob === 'string') return `[resource: ${uri}${mime}, ${base64Bytes(contents.blob)} bytes of binary data]`
  return `[resource: ${uri}${mime}, no contents]`
}

/** A content block as text: the text itself, or a one-line summary of anything else. */
export function describeContentBlock (block: unknown): string {
  if (!isRecord(block)) return '[malformed content block]'
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? block.text : '[text block without text]'
    case 'image':
    case 'audio':
      return `[${block.type}: ${label(block.mimeType, 'unknown type')}, ${base64Bytes(block.data)} bytes]`
    case 'resource':
      return describeResourceContents(block.resource)
    case 'resource_link': {
      const extra = [block.name, block.mimeType].filter((v): v is string => typeof v === 'string' && v !== '').map((v) => label(v, ''))
      return `[resource link: ${label(block.uri, 'unknown uri')}${extra.length > 0 ? ` (${extra.join(', ')})` : ''}]`
    }
    default:
      return `[${label(block.type, 'untyped')} content block]`
  }
}

function stringify (value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null'
  } catch {
    return '"[structured content that cannot be serialised]"'
  }
}

/**
 * A `tools/call` result as handler output. Text blocks are joined with newlines; when
 * `structuredContent` is present it is the content, as JSON (servers repeat it in a text block,
 * so the text is not added twice), with summaries of any non-text blocks after it. `isError`
 * makes it `{"error": ...}` so the envelope reports a tool-level failure. Never throws.
 */
export function mapCallResult (result: unknown): MappedResult {
  if (!isRecord(result)) return { content: toolError('the MCP server returned a malformed tool result'), isError: true }
  const blocks = Array.isArray(result.content) ? result.content : []
  const texts: string[] = []
  const others: string[] = []
  const media: ToolMedia[] = []
  for (const block of blocks) {
    if (isRecord(block) && block.type === 'text' && typeof block.text === 'string') texts.push(block.text)
    else if (isMediaBlock(block)) media.push({ kind: block.type, mimeType: block.mimeType as string, data: block.data as string })
    else others.push(describeContentBlock(block))
  }
  const structured = result.structuredContent
  let parts: string[]
  if (structured !== undefined) parts = [stringify(structured), ...others]
  else if (blocks.length === 0 && Object.hasOwn(result, 'toolResult')) parts = [stringify(result.toolResult)]
  // Images and audio leave the text: the dispatcher's note names each, with where to fetch it.
  else parts = blocks.filter((block) => !isMediaBlock(block)).map(describeContentBlock)

  if (result.isError === true) {
    // The human-readable text says what went wrong better than the structured payload does.
    const text = [...texts, ...others, ...blocks.filter(isMediaBlock).map(describeContentBlock)].join('\n')
    // Already an error object (what another tool gateway's /mcp sends, and many tools return):
    // wrapped again, its message would reach the caller as a JSON string inside another.
    if (isErrorResult(text)) return { content: text, isError: true }
    const message = text !== '' ? text : structured !== undefined ? stringify(structured) : 'the MCP tool reported an error without a message'
    return { content: toolError(message), isError: true }
  }
  const content = parts.join('\n')
  return media.length === 0 ? { content, isError: false } : { content, isError: false, media }
}
