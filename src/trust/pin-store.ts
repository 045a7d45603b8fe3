// Where pins are kept: a JSON file in the state folder (one gateway), or a Redis hash the replicas
// share, with a version counter each replica polls to follow another's approval within seconds.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { PinnedDefinition } from './definition.ts'

export interface Pin {
  digest: string
  definition: PinnedDefinition
  /** true once an operator approved it; false for a definition pinned at first sight. */
  approved: boolean
  at: string
}

export interface PinStore {
  readonly kind: 'file' | 'redis'
  load: () => Promise<Map<string, Pin>>
  /** Writes a pin; `ifAbsent`: only when none is pinned under the key yet (false when one was). */
  put: (key: string, pin: Pin, ifAbsent: boolean) => Promise<boolean>
  /** Synchronous writes, when the store can (a file): a first-seen tool is then served at once. */
  putSync?: (key: string, pin: Pin) => void
  /** Something that changes whenever any replica writes a pin; undefined when nothing to follow. */
  version?: () => Promise<string | null>
}

export class FilePinStore implements PinStore {
  readonly kind = 'file'
  readonly #path: string
  #pins = new Map<string, Pin>()

  constructor (path: string) {
    this.#path = path
  }

  async load (): Promise<Map<string, Pin>> {
    let text: string
    try {
      text = readFileSync(this.#path, 'utf8')
    } catch (err) {
      // No file (or no folder) yet: nothing is pinned, and writing will say whether it can be.
      const code = (err as NodeJS.ErrnoException).code
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err
      return new Map()
    }
    const parsed = JSON.parse(text) as { pins?: Record<string, Pin> }
    this.#pins = new Map(Object.entries(parsed.pins ?? {}))
    return new Map(this.#pins)
  }

  async put (key: string, pin: Pin, ifAbsent: boolean): Promise<boolean> {
    if (ifAbsent && this.#pins.has(key)) return false
    this.putSync(key, pin)
    return true
  }

  putSync (key: string, pin: Pin): void {
    const next = new Map(this.#pins).set(key, pin)
    mkdirSync(dirname(this.#path), { recursive: true })
    // Written beside it and renamed: a crash mid-write never leaves half a file of pins.
    const temporary = `${this.#path}.${process.pid}.tmp`
    writeFileSync(temporary, JSON.stringify({ pins: Object.fromEntries(next) }, null, 2) + '\n', { mode: 0o600 })
    renameSync(temporary, this.#path)
    this.#pins = next
  }
}

/** What the Redis store uses of an ioredis client (the link's, with its key prefix). */
export interface PinRedis {
  hgetall: (key: string) => Promise<Record<string, string>>
  hset: (key: string, field: string, value: string) => Promise<number>
  hsetnx: (key: string, field: string, value: string) => Promise<number>
  incr: (key: string) => Promise<number>
  get: (key: string) => Promise<string | null>
}

const PINS_KEY = 'trust:pins'
const VERSION_KEY = 'trust:pins:version'

export class RedisPinStore implements PinStore {
  readonly kind = 'redis'
  readonly #redis: PinRedis

  constructor (redis: PinRedis) {
    this.#redis = redis
  }

  async load (): Promise<Map<string, Pin>> {
    const all = await this.#redis.hgetall(PINS_KEY)
    return new Map(Object.entries(all).map(([key, value]) => [key, JSON.parse(value) as Pin]))
  }

  async put (key: string, pin: Pin, ifAbsent: boolean): Promise<boolean> {
    const value = JSON.stringify(pin)
    // HSETNX: two replicas that see a tool first at once pin one definition, the other follows it.
    const written = ifAbsent ? await this.#redis.hsetnx(PINS_KEY, key, value) === 1 : (await this.#redis.hset(PINS_KEY, key, value), true)
    if (written) await this.#redis.incr(VERSION_KEY)
    return written
  }

  async version (): Promise<string | null> {
    return await this.#redis.get(VERSION_KEY)
  }
}
