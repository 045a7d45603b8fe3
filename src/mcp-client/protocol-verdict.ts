// The revision a server was found to speak, kept for its reconnects so that a reconnection asks
// nothing the first connect already learnt: a modern verdict carries the server's server/discover
// answer and connects with no round trip; a legacy one goes straight to initialize. Over stdio,
// `auto` probes on a short-lived second process of the server, so without the verdict every
// reconnection would spawn the server twice. It is one server's, for one McpConnection: a
// reconfiguration makes a new connection, which probes again.
//
// Freshness (the SDK leaves it to the host): a stale modern verdict fails at the first request,
// and the connection then forgets it and probes at once (isEraEvidence). A stale legacy verdict
// would succeed silently forever (an upgraded server still answers initialize), so over HTTP it is
// trusted for LEGACY_VERDICT_MAX_AGE_MS, after which the next reconnection probes again. Over
// stdio it is kept: a probe there costs a second process of the server, and the operator's own
// child changes only with its command (a reconfiguration) or a gateway restart.
import type { Client, DiscoverResult, PriorDiscovery } from '@modelcontextprotocol/client'
import { eraOf, isEraEvidence, type ProtocolSetting } from './protocol.ts'

export const LEGACY_VERDICT_MAX_AGE_MS = 24 * 60 * 60 * 1000

export class ProtocolVerdict {
  readonly #setting: ProtocolSetting
  readonly #transport: 'stdio' | 'http'
  #verdict: PriorDiscovery | undefined
  #learntAt = 0

  constructor (setting: ProtocolSetting, transport: 'stdio' | 'http') {
    this.#setting = setting
    this.#transport = transport
  }

  /** Which verdict is held, if any. */
  get held (): PriorDiscovery['kind'] | undefined {
    return this.#verdict?.kind
  }

  /** What the next connect adopts instead of negotiating; undefined = negotiate. `now`: monotonic ms. */
  prior (now: number): PriorDiscovery | undefined {
    const verdict = this.#verdict
    if (verdict?.kind === 'legacy' && this.#transport === 'http' && now - this.#learntAt >= LEGACY_VERDICT_MAX_AGE_MS) {
      this.#verdict = undefined
      return undefined
    }
    return verdict
  }

  /** Keeps what a connected client negotiated. A pinned 2025-era revision needs no verdict: it never probes. */
  learn (client: Pick<Client, 'getNegotiatedProtocolVersion' | 'getDiscoverResult'>, now: number): void {
    const version = client.getNegotiatedProtocolVersion()
    if (version === undefined) return
    const discover = client.getDiscoverResult()
    if (eraOf(version) === 'modern' && discover !== undefined) this.#keep({ kind: 'modern', discover }, now)
    else if (eraOf(version) === 'legacy' && this.#setting === 'auto') this.#keep({ kind: 'legacy' }, now)
  }

  /** A later server/discover answer (the liveness probe's) replaces the one kept: its capabilities are the current ones. */
  rediscovered (discover: DiscoverResult, now: number): void {
    if (this.#verdict?.kind === 'modern') this.#keep({ kind: 'modern', discover }, now)
  }

  forget (): void {
    this.#verdict = undefined
  }

  /** Whether a connect that adopted the verdict failed in a way that says it is stale (isEraEvidence); it is then forgotten. */
  disproved (err: unknown): boolean {
    if (this.#verdict === undefined || !isEraEvidence(err)) return false
    this.forget()
    return true
  }

  #keep (verdict: PriorDiscovery, now: number): void {
    // The learnt time of a legacy verdict is when it was first found: reconnecting does not renew it.
    if (verdict.kind !== 'legacy' || this.#verdict?.kind !== 'legacy') this.#learntAt = now
    this.#verdict = verdict
  }
}
