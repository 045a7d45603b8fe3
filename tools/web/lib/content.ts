// Turns a downloaded body into text for the model: media type → kind, charset decoding, JSON
// pretty-printing, and a character cap that never splits a surrogate pair.
import { TextDecoder } from 'node:util'

export type ContentKind = 'html' | 'json' | 'text' | 'unsupported'

export interface MediaType {
  /** `type/subtype`, lower case, without parameters; '' when the header is absent. */
  essence: string
  charset?: string
}

export function parseMediaType (header: string | null): MediaType {
  if (header === null) return { essence: '' }
  const [essence, ...params] = header.split(';')
  const type: MediaType = { essence: essence.trim().toLowerCase() }
  for (const param of params) {
    const match = /^\s*charset\s*=\s*"?([^";\s]+)"?\s*$/i.exec(param)
    if (match) type.charset = match[1]
  }
  return type
}

const TEXT_TYPES = new Set(['text/plain', 'text/markdown', 'text/x-markdown'])

function looksLikeHtml (body: Buffer): boolean {
  return /^\s*(<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>])/i.test(body.subarray(0, 512).toString('latin1'))
}

/** What to do with a body; a missing Content-Type is sniffed (HTML, else text when it has no NUL byte). */
export function kindOf (type: MediaType, body: Buffer): ContentKind {
  const essence = type.essence
  if (essence === 'text/html' || essence === 'application/xhtml+xml') return 'html'
  if (essence === 'application/json' || essence === 'text/json' || /^application\/[\w.+-]+\+json$/.test(essence)) return 'json'
  if (TEXT_TYPES.has(essence)) return 'text'
  if (essence === '') {
    if (looksLikeHtml(body)) return 'html'
    if (!body.subarray(0, 4096).includes(0)) return 'text'
  }
  return 'unsupported'
}

/** A `<meta charset>` or http-equiv declaration near the top of an HTML document. */
function sniffHtmlCharset (body: Buffer): string | undefined {
  const head = body.subarray(0, 4096).toString('latin1')
  return /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1]
}

function decoderFor (label: string | undefined): TextDecoder {
  if (label !== undefined) {
    try {
      return new TextDecoder(label)
    } catch {
      // An unknown or mistyped label: UTF-8 is the web's default and the best guess left.
    }
  }
  return new TextDecoder('utf-8')
}

// windows-1252 (which WHATWG also uses for the iso-8859-1, latin1 and ascii labels) at 0x80–0x9F.
const CP1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ'

/**
 * Decodes with the charset declared by Content-Type (for HTML, else by a meta tag), UTF-8 when none
 * or unknown. When the download was cut, a multi-byte character split at the end is dropped
 * rather than shown as U+FFFD.
 */
export function decodeBody (body: Buffer, type: MediaType, kind: ContentKind, cut: boolean): string {
  const label = type.charset ?? (kind === 'html' ? sniffHtmlCharset(body) : undefined)
  const decoder = decoderFor(label)
  const text = decoder.decode(body, { stream: cut })
  // Node 20's windows-1252 decoder is really ISO-8859-1: 0x80–0x9F come out as C1 controls
  // instead of € “ ” — ‘ ’ and friends. Map them; a decoder that gets it right leaves none.
  if (decoder.encoding !== 'windows-1252') return text
  return text.replace(/[\u0080-\u009f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80])
}

/** JSON pretty-printed with two spaces; text that does not parse is returned unchanged. */
export function prettyJson (text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}

/** Normalises line ends and trims. */
export function tidyText (text: string): string {
  return text.replace(/\r\n?/g, '\n').trim()
}

export type TextKind = 'json' | 'text'

/** A JSON or text body as the model reads it. */
export function formatText (text: string, kind: TextKind): string {
  return kind === 'json' ? prettyJson(text) : tidyText(text)
}

/** The first `limit` characters (UTF-16 units), backing off one unit rather than splitting a surrogate pair. */
export function cutAt (text: string, limit: number): string {
  if (text.length <= limit) return text
  let end = limit
  const code = text.charCodeAt(end - 1)
  if (code >= 0xd800 && code <= 0xdbff) end--
  return text.slice(0, end)
}
