// The trust book following a shared store (Redis between replicas) when the store goes away between
// reading its version and reading its pins: the pins read before keep judging tools (they were
// trusted), a tool they do not cover is held; only pins never read hold everything (fail closed).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { FilePinStore, type PinStore } from '../../src/trust/pin-store.ts'
import { TrustBook } from '../../src/trust/trust-book.ts'
import { TrustSchema } from '../../src/config/trust-schema.ts'
import { Value } from 'typebox/value'

/** A file store whose version moves on demand and whose reads can be made to fail, as Redis dying would. */
class FlakyStore implements PinStore {
  readonly kind = 'redis'
  readonly #file: FilePinStore
  version_ = 1
  down = false
  constructor (path: string) { this.#file = new FilePinStore(path) }
  async load () { if (this.down) throw new Error('connection refused'); return await this.#file.load() }
  async put (...args: Parameters<PinStore['put']>) { if (this.down) throw new Error('connection refused'); return await this.#file.put(...args) }
  // The version is read, then the store goes away before the pins are.
  async version () { return String(this.version_) }
}

const tool = (description: string) => ({ name: 'lookup', description, inputSchema: { type: 'object' } })

test('a store lost between its version and its pins: pins read before keep judging, a new tool is held', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'trust-follow-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const store = new FlakyStore(join(dir, 'pins.json'))
  const settings = Value.Default(TrustSchema, { syncIntervalMs: 100 }) as ReturnType<TrustBookSettings>
  const book = new TrustBook({ settings: () => settings, store, logger: pino({ level: 'silent' }) })
  await book.start()
  t.after(() => book.stop())
  book.listing('up')
  assert.equal(book.judge('up', 'mcp__up__lookup', tool('Looks a word up.')).trust.held, false)
  await new Promise((resolve) => setTimeout(resolve, 150))
  store.version_++
  store.down = true
  await new Promise((resolve) => setTimeout(resolve, 350))
  assert.equal(book.judge('up', 'mcp__up__lookup', tool('Looks a word up.')).trust.held, false, 'what was pinned stays served')
  // A first-seen tool is pinned in the background; the failed write holds it from the next judgement on.
  book.judge('up', 'mcp__up__extra', { ...tool('New.'), name: 'extra' })
  await new Promise((resolve) => setTimeout(resolve, 20))
  const extra = book.judge('up', 'mcp__up__extra', { ...tool('New.'), name: 'extra' }).trust
  assert.equal(extra.held, true, 'what cannot be pinned is held')
  assert.match(extra.reason ?? '', /could not be pinned/)
})

type TrustBookSettings = ConstructorParameters<typeof TrustBook>[0]['settings']
