// The images and sounds a handler (or an MCP upstream, through its handler) returns beside its text,
// checked once when the call ends: a type every model format can name, well-formed base64, and a cap
// on the bytes one call may carry. An item that fails is dropped and the text says why, so that a
// tool's mistake never fails the call nor reaches a model API that would refuse the whole request.
import type { MediaResult, ToolMedia } from '../../registry/types.ts'

/** Bytes of media one call may return when config says nothing (dispatch.maxMediaBytes). */
export const DEFAULT_MAX_MEDIA_BYTES = 10_485_760

export const MEDIA_MIME_TYPES = {
  // The four image types that Anthropic, OpenAI and Gemini all accept.
  image: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'],
  audio: ['audio/wav', 'audio/x-wav', 'audio/mpeg', 'audio/mp3', 'audio/ogg', 'audio/webm', 'audio/flac', 'audio/aac', 'audio/mp4']
} as const satisfies Record<ToolMedia['kind'], readonly string[]>

/** A checked media item, with its size; `url` once the result store keeps it for the caller. */
export interface CarriedMedia extends ToolMedia {
  bytes: number
  url?: string
}

export interface CheckedMedia {
  media: CarriedMedia[]
  /** One line per dropped item, for the text. */
  dropped: string[]
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/
const WHITESPACE = /\s+/g
// Not global: a global regex's test() keeps state between calls.
const HAS_WHITESPACE = /\s/

/** Whether `value` has the shape of a MediaResult (a handler's non-string answer). */
export function isMediaResult (value: unknown): value is MediaResult {
  return typeof value === 'object' && value !== null && typeof (value as MediaResult).text === 'string' && Array.isArray((value as MediaResult).media)
}

/** Decoded size of well-formed base64, or why it is not. */
function decodedBytes (data: unknown): number | string {
  if (typeof data !== 'string') return 'data is not a base64 string'
  const compact = HAS_WHITESPACE.test(data) ? data.replace(WHITESPACE, '') : data
  if (compact.length % 4 !== 0 || !BASE64.test(compact)) return 'data is not valid base64'
  const padding = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0
  return compact.length / 4 * 3 - padding
}

function refusal (item: unknown, maxBytesLeft: number): string | { mimeType: string, kind: ToolMedia['kind'], bytes: number } {
  if (typeof item !== 'object' || item === null) return 'not a media object'
  const { kind, mimeType, data } = item as Partial<ToolMedia>
  if (kind !== 'image' && kind !== 'audio') return `kind must be image or audio (got ${JSON.stringify(kind)?.slice(0, 40)})`
  const allowed: readonly string[] = MEDIA_MIME_TYPES[kind]
  const type = typeof mimeType === 'string' ? mimeType.toLowerCase() : ''
  if (!allowed.includes(type)) return `${JSON.stringify(mimeType)?.slice(0, 60)} is not an accepted ${kind} type (accepted: ${allowed.join(', ')})`
  const bytes = decodedBytes(data)
  if (typeof bytes === 'string') return bytes
  if (bytes === 0) return 'data is empty'
  if (bytes > maxBytesLeft) return `${bytes} bytes is over the ${maxBytesLeft} bytes of media this call may still carry (dispatch.maxMediaBytes)`
  return { kind, mimeType: type, bytes }
}

/** Checks the items in order; those past `maxBytes` (all items together) are dropped. */
export function checkMedia (items: readonly unknown[], maxBytes: number): CheckedMedia {
  const media: CarriedMedia[] = []
  const dropped: string[] = []
  let left = maxBytes
  for (const item of items) {
    const verdict = refusal(item, left)
    if (typeof verdict === 'string') {
      const kind = (item as { kind?: unknown } | null)?.kind
      dropped.push(`[${kind === 'audio' ? 'audio' : kind === 'image' ? 'image' : 'media item'} dropped: ${verdict}]`)
      continue
    }
    left -= verdict.bytes
    const { data } = item as ToolMedia
    media.push({ ...verdict, data: HAS_WHITESPACE.test(data) ? data.replace(WHITESPACE, '') : data })
  }
  return { media, dropped }
}

/** The line the text gets for each carried item: what it is, and where to fetch it when it is kept. */
export function mediaNote (media: readonly CarriedMedia[]): string {
  return media.map((item, i) => item.url === undefined
    ? `[${item.kind} ${i}: ${item.mimeType}, ${item.bytes} bytes; not kept by the gateway]`
    : `[${item.kind} ${i}: ${item.mimeType}, ${item.bytes} bytes; GET ${item.url} fetches it]`).join('\n')
}
