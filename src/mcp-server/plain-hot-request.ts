// The common case, told without the SDK's classifier: a well-formed 2026-07-28 server/discover,
// tools/list or tools/call whose envelope and standard headers are plainly right. The classifier
// tests a request against the response shapes first, and those failing schema checks cost more than
// the rest of the request's handling (bench/README.md). Anything this does not recognise goes
// through the classifier as before; a property test holds that whatever this accepts, the
// classifier classifies the same way and hotRequestOf accepts too.
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY, isSpecType } from '@modelcontextprotocol/server'
import type { IncomingHttpHeaders } from 'node:http'
import { isRecord } from '../shared/objects.ts'
import type { HotRequest } from './hot-methods.ts'
import { MODERN_REVISION } from './modern-revision.ts'

const RESERVED_PREFIX = 'io.modelcontextprotocol/'
/** The envelope keys a plain request may carry; any other reserved key is the SDK's to judge. */
const ENVELOPE_KEYS: ReadonlySet<string> = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY])
/** The params each method may carry here: another one (a task request, say) changes what the SDK does. */
const PARAMS: Readonly<Record<string, ReadonlySet<string>>> = {
  'server/discover': new Set(['_meta']),
  'tools/list': new Set(['_meta', 'cursor']),
  'tools/call': new Set(['_meta', 'name', 'arguments'])
}
const BODY_KEYS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params'])
const OWS_AT_ENDS = /^[ \t]|[ \t]$/

function onlyKeys (value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false
  return true
}

function plainMeta (meta: Record<string, unknown>): boolean {
  for (const key in meta) if (key.startsWith(RESERVED_PREFIX) && !ENVELOPE_KEYS.has(key)) return false
  if (meta[PROTOCOL_VERSION_META_KEY] !== MODERN_REVISION) return false
  if (!isRecord(meta[CLIENT_CAPABILITIES_META_KEY]) || !isSpecType.ClientCapabilities(meta[CLIENT_CAPABILITIES_META_KEY])) return false
  const info = meta[CLIENT_INFO_META_KEY]
  if (info !== undefined && !(isRecord(info) && isSpecType.Implementation(info))) return false
  const token = meta.progressToken
  return token === undefined || typeof token === 'string' || Number.isSafeInteger(token)
}

export function plainHotRequest (headers: IncomingHttpHeaders, body: unknown): HotRequest | undefined {
  if (!isRecord(body) || body.jsonrpc !== '2.0' || typeof body.method !== 'string' || !onlyKeys(body, BODY_KEYS)) return undefined
  const allowed = PARAMS[body.method]
  const { id, params } = body
  if (allowed === undefined || !(typeof id === 'string' || Number.isSafeInteger(id)) || !isRecord(params) || !onlyKeys(params, allowed)) return undefined
  if (!isRecord(params._meta) || !plainMeta(params._meta)) return undefined
  // The headers exactly as the body says (no white space around them, no Base64 name to decode).
  if (headers['mcp-protocol-version'] !== MODERN_REVISION || headers['mcp-method'] !== body.method) return undefined
  if (body.method === 'tools/call') {
    // A name with white space at either end is the SDK's to judge: it strips the header's before comparing.
    if (typeof params.name !== 'string' || headers['mcp-name'] !== params.name || OWS_AT_ENDS.test(params.name)) return undefined
    if (params.arguments !== undefined && !isRecord(params.arguments)) return undefined
  } else if (body.method === 'tools/list' && params.cursor !== undefined && typeof params.cursor !== 'string') {
    return undefined
  }
  return { method: body.method as HotRequest['method'], id: id as string | number, params }
}
