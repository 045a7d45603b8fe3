// Discovery's verdicts, remembered between starts: a start whose tool modules did not change spawns
// no analysis child (a second Node process that loads the parser: the largest single cost of a
// start). A verdict depends on the module's text and on its
// extension (TypeScript or JavaScript), on the parser and on the rules that read its tree
// (top-level-register.ts): the key hashes the first two, and a cache written by another parser
// version or other rules is not read. The folder must be this user's alone, because a
// verdict decides which files get imported. Everything here fails soft: a cache that cannot be
// read or written (read-only file system, foreign folder, corrupt file) is no cache, never an error.
import { createHash } from 'node:crypto'
import { lstat, mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isRecord } from '../shared/objects.ts'
import type { ModuleVerdict } from './analyse-modules.ts'

type Verdict = { registers: boolean, parseErrors: string[] }

const FORMAT = 2
const FILE_NAME = 'discovery-verdicts.json'
/** Far more modules than any set of tool folders holds; past it the entries least recently used go. */
const MAX_ENTRIES = 5_000
const READS_AT_ONCE = 32

/** A folder per user under the system's temporary one (writable in a container, unlike /app). */
export function defaultCacheDir (): string {
  return join(tmpdir(), `tool-gateway-${process.getuid?.() ?? 'user'}`)
}

function keyOf (file: string, source: string): string {
  return createHash('sha256').update(extname(file)).update('\0').update(source).digest('base64url')
}

function isVerdict (value: unknown): value is Verdict {
  return isRecord(value) && typeof value.registers === 'boolean' &&
    Array.isArray(value.parseErrors) && value.parseErrors.every((error) => typeof error === 'string')
}

/** The parser's version and a hash of the rules' source (the .ts, or the .js of the compiled build). */
async function analysisVersion (): Promise<string> {
  const manifest = JSON.parse(await readFile(new URL(import.meta.resolve('oxc-parser/package.json')), 'utf8')) as { version: string }
  const rules = await readFile(new URL(`./top-level-register${extname(fileURLToPath(import.meta.url))}`, import.meta.url))
  return `${manifest.version} ${createHash('sha256').update(rules).digest('base64url').slice(0, 16)}`
}

/** Creates the folder (0700) and says whether it is this user's and nobody else can write to it. */
async function isPrivateFolder (dir: string): Promise<boolean> {
  // Not recursive: the temporary folder exists, and a recursive mkdir where a parent cannot be made
  // spins for ever on some file systems (under /proc, Node 24).
  try {
    await mkdir(dir, { mode: 0o700 })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  }
  const stats = await lstat(dir)
  const ours = process.getuid === undefined || stats.uid === process.getuid()
  return stats.isDirectory() && ours && (stats.mode & 0o022) === 0
}

export class VerdictCache {
  readonly #file: string
  readonly #analysis: string
  readonly #entries: Map<string, Verdict>
  /** The key of each file looked up in this pass, for remembering what the analysis says of it. */
  readonly #keys = new Map<string, string>()
  #changed = false

  private constructor (file: string, analysis: string, entries: Map<string, Verdict>) {
    this.#file = file
    this.#analysis = analysis
    this.#entries = entries
  }

  /** The cache in `dir`, empty when there is none yet; undefined when it cannot be used at all. */
  static async open (dir: string): Promise<VerdictCache | undefined> {
    try {
      if (!(await isPrivateFolder(dir))) return undefined
      const analysis = await analysisVersion()
      const file = join(dir, FILE_NAME)
      return new VerdictCache(file, analysis, await readEntries(file, analysis))
    } catch {
      return undefined
    }
  }

  /** The remembered verdict of each file whose text is unchanged; the others are left out. */
  async known (files: readonly string[]): Promise<Map<string, ModuleVerdict>> {
    const found = new Map<string, ModuleVerdict>()
    // A few reads at a time: thousands of modules must not take thousands of file descriptors.
    for (let i = 0; i < files.length; i += READS_AT_ONCE) {
      await Promise.all(files.slice(i, i + READS_AT_ONCE).map(async (file) => {
        const verdict = await this.#lookUp(file)
        if (verdict !== undefined) found.set(file, { file, registers: verdict.registers, parseErrors: [...verdict.parseErrors] })
      }))
    }
    return found
  }

  async #lookUp (file: string): Promise<Verdict | undefined> {
    let source: string
    try {
      source = await readFile(file, 'utf8')
    } catch {
      return undefined // The analysis reports why it cannot be read.
    }
    const key = keyOf(file, source)
    this.#keys.set(file, key)
    const verdict = this.#entries.get(key)
    if (verdict === undefined) return undefined
    // Used again: moved to the end, the last to go when the cache is full.
    this.#entries.delete(key)
    this.#entries.set(key, verdict)
    return verdict
  }

  /** Keeps the analysis's verdicts of files looked up in this pass (not those it could not read). */
  remember (verdicts: readonly ModuleVerdict[]): void {
    for (const verdict of verdicts) {
      const key = this.#keys.get(verdict.file)
      if (key === undefined || !('registers' in verdict)) continue
      this.#entries.set(key, { registers: verdict.registers, parseErrors: verdict.parseErrors })
      this.#changed = true
    }
    for (const key of this.#entries.keys()) {
      if (this.#entries.size <= MAX_ENTRIES) break
      this.#entries.delete(key)
    }
  }

  /** Writes the cache when it changed: a whole new file renamed over the old, so that a start reading it meanwhile sees one or the other. */
  async save (): Promise<void> {
    if (!this.#changed) return
    const text = JSON.stringify({ format: FORMAT, analysis: this.#analysis, entries: Object.fromEntries(this.#entries) })
    const temporary = `${this.#file}.${process.pid}.tmp`
    try {
      await writeFile(temporary, text, { mode: 0o600 })
      await rename(temporary, this.#file)
      this.#changed = false
    } catch {
      // Not saved: the next start analyses again.
    }
  }
}

async function readEntries (file: string, analysis: string): Promise<Map<string, Verdict>> {
  const entries = new Map<string, Verdict>()
  let data: unknown
  try {
    data = JSON.parse(await readFile(file, 'utf8'))
  } catch {
    return entries // None yet, or not readable as JSON: start afresh.
  }
  if (!isRecord(data) || data.format !== FORMAT || data.analysis !== analysis || !isRecord(data.entries)) return entries
  for (const [key, verdict] of Object.entries(data.entries)) {
    if (isVerdict(verdict)) entries.set(key, verdict)
  }
  return entries
}
