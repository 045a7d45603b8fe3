// The fixed workspace of the code-mode benchmark, generated from a seed so that every run (and the
// test) reads the same bytes: notes/ of prose and code-like text, some mentioning the task's word,
// services/ of JSON service configs, and a 3-line small.txt for the overhead measurements. The
// answers are computed here from what was generated, independently of both ways of doing the tasks.
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

export const WORD = 'deadline'

export interface CorpusSize {
  notes: number
  services: number
  minLines: number
  maxLines: number
}

export const FULL_CORPUS: CorpusSize = { notes: 20, services: 12, minLines: 40, maxLines: 200 }

export interface NotesAnswer { files: string[], lines: number }
export interface ServicesAnswer { services: string[], replicas: number }
export interface Corpus { notes: NotesAnswer, services: ServicesAnswer, size: CorpusSize }

/** mulberry32: small, fast and the same on every platform. */
function generator (seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

// No word here contains WORD, so only the sentences that add it on purpose mention it.
const NOUNS = ['release', 'migration', 'schema', 'client', 'cache', 'queue', 'worker', 'budget', 'review', 'report', 'index', 'backup', 'rollout', 'ticket', 'customer', 'invoice', 'pipeline', 'sprint', 'dashboard', 'latency']
const VERBS = ['ships', 'blocks', 'needs', 'updates', 'replaces', 'depends on', 'slows down', 'checks', 'moves', 'retries']
const ADJECTIVES = ['new', 'old', 'shared', 'flaky', 'nightly', 'regional', 'legacy', 'urgent', 'optional', 'internal']
const IDENTIFIERS = ['config', 'result', 'items', 'count', 'options', 'payload', 'handler', 'retries', 'timeoutMs', 'entry']

class Writer {
  readonly #random: () => number
  constructor (seed: number) { this.#random = generator(seed) }
  int (min: number, max: number): number { return min + Math.floor(this.#random() * (max - min + 1)) }
  pick<T> (items: readonly T[]): T { return items[this.int(0, items.length - 1)] }
  chance (p: number): boolean { return this.#random() < p }

  sentence (): string {
    const subject = `The ${this.pick(ADJECTIVES)} ${this.pick(NOUNS)}`
    const tail = this.chance(0.5) ? ` before the ${this.pick(NOUNS)} is ${this.pick(ADJECTIVES)}` : ''
    return `${subject} ${this.pick(VERBS)} the ${this.pick(NOUNS)}${tail}.`
  }

  codeLine (): string {
    const id = this.pick(IDENTIFIERS)
    switch (this.int(0, 3)) {
      case 0: return `  const ${id} = await load${this.pick(NOUNS).replace(/^./, (c) => c.toUpperCase())}(${this.pick(IDENTIFIERS)})`
      case 1: return `  if (${id}.length > ${this.int(1, 500)}) return ${this.pick(IDENTIFIERS)}`
      case 2: return `  // ${this.sentence()}`
      default: return `  ${id}.push({ ${this.pick(IDENTIFIERS)}: ${this.int(0, 9999)} })`
    }
  }

  /** A note of `lines` lines: paragraphs of prose and blocks of code, one mention of WORD if asked. */
  note (index: number, lines: number, mention: boolean): string {
    const out = [`# Note ${index}: the ${this.pick(ADJECTIVES)} ${this.pick(NOUNS)}`]
    while (out.length < lines) {
      if (this.chance(0.3)) {
        out.push('```js', `async function ${this.pick(IDENTIFIERS)}Of${index} () {`)
        for (let i = this.int(2, 8); i > 0; i--) out.push(this.codeLine())
        out.push('}', '```')
      } else {
        for (let i = this.int(1, 5); i > 0; i--) out.push(this.sentence() + (this.chance(0.4) ? ' ' + this.sentence() : ''))
        out.push('')
      }
    }
    out.length = lines
    if (mention) out[this.int(1, lines - 1)] = `The ${this.pick(NOUNS)} has a hard ${WORD} on Friday, so the ${this.pick(NOUNS)} waits.`
    return out.join('\n') + '\n'
  }
}

const SERVICE_NAMES = ['auth', 'billing', 'catalog', 'checkout', 'gateway', 'inventory', 'mailer', 'orders', 'payments', 'recommendations', 'search', 'shipping', 'profiles', 'reviews', 'analytics', 'notifications']

function serviceConfig (w: Writer, name: string): { name: string, port: number, replicas: number, text: string } {
  const port = w.pick([3000, 4000, 5000, 7000, 8000, 8080, 8443, 9000, 9090]) + w.int(0, 9)
  const replicas = w.int(1, 8)
  const config = {
    name,
    image: `registry.example.com/shop/${name}:${w.int(1, 4)}.${w.int(0, 20)}.${w.int(0, 9)}`,
    port,
    replicas,
    env: {
      LOG_LEVEL: w.pick(['info', 'warn', 'debug']),
      DATABASE_URL: `postgres://${name}@db-${w.int(1, 3)}.internal:5432/${name}`,
      CACHE_TTL_S: w.int(30, 3600),
      FEATURE_FLAGS: [w.pick(NOUNS), w.pick(NOUNS)].join(',')
    },
    healthcheck: { path: '/healthz', interval_s: w.pick([5, 10, 15, 30]), timeout_s: w.int(1, 5) },
    resources: { cpu: `${w.int(1, 8) * 250}m`, memory: `${w.pick([128, 256, 512, 1024, 2048])}Mi` },
    depends_on: SERVICE_NAMES.filter((other) => other !== name && w.chance(0.2)),
    labels: { team: w.pick(['core', 'growth', 'platform', 'payments']), tier: w.pick(['frontend', 'backend', 'batch']) }
  }
  return { name, port, replicas, text: JSON.stringify(config, null, 2) + '\n' }
}

export const noteName = (i: number): string => `notes/note-${String(i).padStart(2, '0')}.txt`

/** Writes the workspace under `root` and answers what each task must find. */
export async function writeCorpus (root: string, size: CorpusSize = FULL_CORPUS): Promise<Corpus> {
  const w = new Writer(31)
  await mkdir(join(root, 'notes'), { recursive: true })
  await mkdir(join(root, 'services'), { recursive: true })
  await writeFile(join(root, 'small.txt'), 'alpha\nbeta\ngamma\n')
  const notes: NotesAnswer = { files: [], lines: 0 }
  for (let i = 1; i <= size.notes; i++) {
    const lines = w.int(size.minLines, size.maxLines)
    // About a third mention the word; the first always does, so a small corpus has one too.
    const mention = i === 1 || w.chance(0.35)
    await writeFile(join(root, noteName(i)), w.note(i, lines, mention))
    if (mention) {
      notes.files.push(noteName(i))
      notes.lines += lines
    }
  }
  const services: ServicesAnswer = { services: [], replicas: 0 }
  for (const name of SERVICE_NAMES.slice(0, size.services)) {
    const config = serviceConfig(w, name)
    await writeFile(join(root, 'services', `${name}.json`), config.text)
    if (config.port > 8000) {
      services.services.push(name)
      services.replicas += config.replicas
    }
  }
  return { notes, services, size }
}
