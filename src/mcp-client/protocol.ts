// Which MCP revision a server is spoken to in: the SDK client's negotiation options for the
// configured `protocol`, the check that a pinned revision is the one spoken, and the reading of the
// failures that say the server speaks another one (for the verdict cache, protocol-verdict.ts, and
// for the operator's lastError).
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError, type ClientOptions } from '@modelcontextprotocol/client'
import type { McpServerConfig } from '../config/schema.ts'
import { isRecord, messageOf } from '../shared/objects.ts'

export type ProtocolSetting = NonNullable<McpServerConfig['protocol']>
export type ProtocolEra = 'modern' | 'legacy'

/** The first revision of the modern era (no initialize, server/discover); revisions are ISO dates, so later ones sort after it. */
export const FIRST_MODERN_REVISION = '2026-07-28'

/** JSON-RPC code of UnsupportedProtocolVersion (2026-07-28), with `data.supported`. */
const UNSUPPORTED_PROTOCOL_VERSION = -32022

export function eraOf (revision: string): ProtocolEra {
  return revision >= FIRST_MODERN_REVISION ? 'modern' : 'legacy'
}

/** The configured setting, `auto` when absent. */
export function protocolSetting (config: McpServerConfig): ProtocolSetting {
  return config.protocol ?? 'auto'
}

/**
 * The client options for a setting. A modern pin is the SDK's own pin (server/discover must offer
 * it). The SDK pins no 2025-era revision, but its initialize handshake offers the first 2025-era
 * entry of `supportedProtocolVersions` and refuses an answer outside the list: a list of one is
 * exactly the pin. `auto` probes with server/discover and falls back to initialize.
 */
export function negotiationOptions (setting: ProtocolSetting): Pick<ClientOptions, 'versionNegotiation' | 'supportedProtocolVersions'> {
  if (setting === 'auto') return { versionNegotiation: { mode: 'auto' } }
  if (eraOf(setting) === 'modern') return { versionNegotiation: { mode: { pin: setting } } }
  return { versionNegotiation: { mode: 'legacy' }, supportedProtocolVersions: [setting] }
}

/** Why a connection is not in the pinned revision, or undefined when it is (or nothing is pinned). */
export function pinMismatch (server: string, setting: ProtocolSetting, negotiated: string | undefined): string | undefined {
  if (setting === 'auto' || negotiated === setting) return undefined
  return `the server speaks MCP ${negotiated ?? 'in no known revision'}, not the pinned ${setting} (mcpServers.${server}.protocol)`
}

/** What an UnsupportedProtocolVersion (-32022) answer says, from a JSON-RPC error or from the HTTP 400 body that carried one. */
export function unsupportedVersion (err: unknown): { supported: string[] } | undefined {
  let error: unknown
  if (err instanceof ProtocolError) error = { code: err.code, data: err.data }
  else if (err instanceof SdkHttpError && isRecord(err.data) && typeof err.data.text === 'string') {
    try {
      error = (JSON.parse(err.data.text) as { error?: unknown }).error
    } catch {
      return undefined
    }
  }
  if (!isRecord(error) || error.code !== UNSUPPORTED_PROTOCOL_VERSION) return undefined
  const supported = isRecord(error.data) && Array.isArray(error.data.supported) ? error.data.supported.filter((v): v is string => typeof v === 'string') : []
  return { supported }
}

const LEGACY_ANSWER = /Server's protocol version is not supported: (\S{1,40})/

/**
 * The failure told in the terms of the configured protocol, when it is about the revision: a pin
 * the server does not speak, or a server that speaks none the client offers. Undefined otherwise.
 */
export function protocolFailure (server: string, setting: ProtocolSetting, err: unknown): string | undefined {
  const field = `mcpServers.${server}.protocol`
  const refused = unsupportedVersion(err)
  if (refused !== undefined) {
    const supported = refused.supported.length > 0 ? refused.supported.join(', ') : 'a list it did not give'
    return setting === 'auto'
      ? `the server refused the MCP revisions offered; it supports ${supported}`
      : `the server does not speak the pinned MCP ${setting} (${field}); it supports ${supported}`
  }
  if (err instanceof SdkError && err.code === SdkErrorCode.EraNegotiationFailed && setting !== 'auto') {
    return `the server does not offer the pinned MCP ${setting} (${field}; auto speaks whichever revision it offers): ${messageOf(err)}`
  }
  const answered = LEGACY_ANSWER.exec(messageOf(err))?.[1]
  if (answered !== undefined && setting !== 'auto') {
    return `the server answered with MCP ${answered}, not the pinned ${setting} (${field})`
  }
  return undefined
}

// Failures that mean the server answered, but not in the revision a cached verdict said it speaks.
const ERA_SDK_CODES: ReadonlySet<string> = new Set([
  SdkErrorCode.EraNegotiationFailed, SdkErrorCode.InvalidResult, SdkErrorCode.UnsupportedResultType, SdkErrorCode.MethodNotSupportedByProtocolVersion
])

// HTTP statuses that say nothing about the revision: authentication, a missing endpoint, throttling.
const NOT_ERA_STATUSES: ReadonlySet<number> = new Set([401, 403, 404, 408, 429])

/**
 * Whether a failed connect may be the cached verdict's fault: the server answered, and refused or
 * misread what was sent in that revision (a -32022, a 4xx to the request, an error answer, a result
 * shaped for the other era). A closed pipe, a refused connection or a timeout is not: a crash-looping
 * server must not cost a fresh probe (and, over stdio, a second process) at every attempt.
 */
export function isEraEvidence (err: unknown): boolean {
  if (err instanceof SdkHttpError) return err.status >= 400 && err.status < 500 && !NOT_ERA_STATUSES.has(err.status)
  if (err instanceof SdkError) return ERA_SDK_CODES.has(err.code)
  if (err instanceof ProtocolError) return true
  return LEGACY_ANSWER.test(messageOf(err))
}
