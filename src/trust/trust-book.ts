// The trust of upstream MCP tools (docs/trust.md): each listed definition is judged against its pin
// (pinned at first sight; a changed one held under `enforce`, flagged under `warn`), its texts are
// scanned and cleaned, and a held tool waits for an operator's approval. Changes of the pins (an
// approval here, another replica's through Redis, a store that fails) are told as 'changed', on
// which each server's mirror judges its list again.
import { EventEmitter } from 'node:events'
import type { Logger } from 'pino'
import type { GatewayConfig } from '../config/schema.ts'
import { PinStoreUnavailableError, ToolNotFoundError, ToolNotHeldError } from '../shared/errors.ts'
import { messageOf } from '../shared/objects.ts'
import { changesOf, definitionOf, digestOf, type DefinitionChange, type PinnedDefinition } from './definition.ts'
import type { Pin, PinStore } from './pin-store.ts'
import { scanTool } from './scanner.ts'

export const CHANGED_REASON = 'its definition changed since it was approved'

type TrustSettings = GatewayConfig['trust']

/** What /tools shows of an upstream tool's trust. */
export interface ToolTrust {
  /** The digest of the definition listed now. */
  digest: string
  held: boolean
  /** Why it is held; absent when it is served. */
  reason?: string
  findings: string[]
  /** The pinned definition's fields that differ from the listed one; absent when none. */
  changes?: DefinitionChange[]
}

interface Judged<T> { tool: T, trust: ToolTrust }

interface Known { key: string, definition: PinnedDefinition, trust: ToolTrust }

export interface TrustBookOptions {
  settings: () => TrustSettings
  store: PinStore
  logger: Logger
}

type Listed = { name: string, title?: unknown, description?: unknown, inputSchema?: unknown, annotations?: unknown }

export class TrustBook extends EventEmitter {
  readonly #settings: () => TrustSettings
  readonly #logger: Logger
  #store: PinStore
  #pins = new Map<string, Pin>()
  /** Registry name → the last judgement of that tool. */
  readonly #known = new Map<string, Known>()
  #storeError: string | undefined
  /** Why the pins could not be read, until they can: every upstream tool is held meanwhile. */
  #loadError: string | undefined
  /** Server → whether it had pins when its current list began to be judged (listing). */
  readonly #serverKnown = new Map<string, boolean>()
  #version: string | null = null
  #timer: NodeJS.Timeout | undefined

  constructor (options: TrustBookOptions) {
    super()
    // One listener per MCP server's mirror: dozens of servers are no leak.
    this.setMaxListeners(0)
    this.#settings = options.settings
    this.#store = options.store
    this.#logger = options.logger
  }

  get storeKind (): PinStore['kind'] { return this.#store.kind }

  /** Replaces the store (Redis, once the link is open); before start only. */
  share (store: PinStore): void {
    this.#store = store
  }

  /** Reads the pins; a store that cannot be read holds every tool not yet pinned (fail closed). */
  async start (): Promise<void> {
    if (this.#settings().pinning === 'off') return
    await this.#reload()
    if (this.#store.version === undefined) return
    this.#timer = setInterval(() => { this.#follow().catch(() => {}) }, this.#settings().syncIntervalMs)
    this.#timer.unref()
  }

  stop (): void {
    clearInterval(this.#timer)
  }

  /** The trust of a tool by its registry name; undefined for a tool that is not an upstream one. */
  status (name: string): ToolTrust | undefined {
    return this.#known.get(name)?.trust
  }

  /**
   * A server's list is about to be judged: whether it had pins before it is noted now, so that
   * trust.holdNewTools holds a tool added to a known server, never the tools of a new server's first list.
   */
  listing (server: string): void {
    const prefix = JSON.stringify([server]).slice(0, -1) + ','
    this.#serverKnown.set(server, [...this.#pins.keys()].some((key) => key.startsWith(prefix)))
  }

  /** Judges one listed tool: its cleaned copy and whether it is held. Pins a first-seen definition. */
  judge<T extends Listed> (server: string, name: string, tool: T): Judged<T> {
    const settings = this.#settings()
    const scan = scanTool(tool, settings.maxDescriptionChars)
    const definition = definitionOf(tool)
    const key = JSON.stringify([server, tool.name])
    const trust: ToolTrust = { digest: digestOf(definition), held: false, findings: scan.findings }
    if (settings.pinning !== 'off' && this.#loadError !== undefined) this.#hold(trust, `the pins cannot be read (${this.#loadError})`)
    else if (settings.pinning !== 'off') this.#judgePin(server, key, definition, trust, settings)
    const pin = this.#pins.get(key)
    if (!trust.held && settings.holdSuspicious && scan.findings.length > 0 && !(pin?.approved === true && pin.digest === trust.digest)) {
      this.#hold(trust, 'its description or schema has findings and trust.holdSuspicious is on')
    }
    this.#known.set(name, { key, definition, trust })
    return { tool: scan.cleaned, trust }
  }

  /** A tool no longer listed: its judgement goes (its pin stays, for when it comes back). */
  forget (name: string): void {
    this.#known.delete(name)
  }

  /**
   * Takes the listed definition of a held tool as its pin; every replica serves it after. Told as
   * 'approved' ({ tool, digest, by }), where the audit trail records it.
   */
  async approve (name: string, by: string): Promise<ToolTrust> {
    const known = this.#known.get(name)
    if (known === undefined) throw new ToolNotFoundError(`${name}: no upstream MCP tool of that name is listed (built-in, plugin and local tools are not pinned)`)
    if (!known.trust.held) throw new ToolNotHeldError(`${name} is not held: it is served as it is, so there is nothing to approve`)
    const pin: Pin = { digest: known.trust.digest, definition: known.definition, approved: true, at: new Date().toISOString() }
    try {
      await this.#store.put(known.key, pin, false)
    } catch (err) {
      this.#failed(err)
      throw new PinStoreUnavailableError(`the pin store cannot be written (${this.#storeError}): ${name} stays held`)
    }
    this.#storeError = undefined
    this.#pins.set(known.key, pin)
    this.#logger.info({ tool: name, digest: pin.digest }, 'held tool approved: its definition is pinned')
    this.emit('approved', { tool: name, digest: pin.digest, by })
    this.emit('changed')
    return { digest: pin.digest, held: false, findings: known.trust.findings }
  }

  #judgePin (server: string, key: string, definition: PinnedDefinition, trust: ToolTrust, settings: TrustSettings): void {
    const pin = this.#pins.get(key)
    if (pin === undefined) {
      if (settings.holdNewTools && this.#serverKnown.get(server) === true) this.#hold(trust, 'it is a new tool of a server whose tools are pinned (trust.holdNewTools)')
      else this.#pinFirst(key, { digest: trust.digest, definition, approved: false, at: new Date().toISOString() }, trust)
      return
    }
    if (pin.digest === trust.digest) return
    trust.changes = changesOf(pin.definition, definition)
    if (settings.pinning === 'enforce') this.#hold(trust, CHANGED_REASON)
    else trust.findings.push(`${CHANGED_REASON} (served, flagged: trust.pinning is warn)`)
  }

  /** Pins a first-seen definition: at once in a file, in the background in Redis (a failure then holds it). */
  #pinFirst (key: string, pin: Pin, trust: ToolTrust): void {
    if (this.#storeError !== undefined && this.#store.putSync === undefined) {
      this.#hold(trust, `its definition could not be pinned: the pin store cannot be written (${this.#storeError})`)
      return
    }
    if (this.#store.putSync !== undefined) {
      try {
        this.#store.putSync(key, pin)
        this.#storeError = undefined
        this.#pins.set(key, pin)
      } catch (err) {
        this.#failed(err)
        this.#hold(trust, `its definition could not be pinned: the pin store cannot be written (${this.#storeError})`)
      }
      return
    }
    this.#pins.set(key, pin)
    this.#store.put(key, pin, true).then(async (written) => {
      // Another replica pinned it first: follow its pins (the definition may differ).
      if (!written) await this.#reload()
    }, (err: unknown) => {
      this.#failed(err)
      this.#pins.delete(key)
      this.emit('changed')
    })
  }

  #hold (trust: ToolTrust, reason: string): void {
    trust.held = true
    trust.reason = reason
  }

  #failed (err: unknown): void {
    const message = messageOf(err)
    if (this.#storeError !== message) this.#logger.error({ err: message, store: this.#store.kind }, 'the pin store cannot be written: tools not yet pinned are held')
    this.#storeError = message
  }

  async #reload (): Promise<void> {
    try {
      this.#version = (await this.#store.version?.()) ?? null
      this.#pins = await this.#store.load()
    } catch (err) {
      // Judging against no pins would pin (and so trust) whatever is listed now: hold instead.
      const message = messageOf(err)
      if (this.#loadError !== message) this.#logger.error({ err: message, store: this.#store.kind }, 'the pins cannot be read: upstream tools are held')
      this.#loadError = message
      this.emit('changed')
      return
    }
    this.#loadError = undefined
    this.emit('changed')
  }

  /**
   * Another replica's approval: the version moved, so the pins are read again. Pins once read stay
   * what tools are judged by when a later read fails (the store went away between the version and
   * the pins): they were trusted, and a tool they do not cover is held anyway, since it cannot be
   * pinned while the store is away. Only pins never read hold everything.
   */
  async #follow (): Promise<void> {
    if (this.#loadError !== undefined) return await this.#reload()
    let version: string | null
    try {
      version = (await this.#store.version?.()) ?? null
      if (version === this.#version) return
      this.#pins = await this.#store.load()
    } catch {
      return
    }
    this.#version = version
    this.emit('changed')
  }
}
