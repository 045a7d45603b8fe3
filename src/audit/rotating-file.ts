// The audit file, rotated by size: when the next batch would take it past maxBytes, `audit.log`
// becomes `audit.log.1` (and `.1` becomes `.2`, ...), the oldest beyond `keep` is deleted, and a new
// file is begun. Writes are appended one batch at a time, in order, never on the request's path.
import { appendFile, mkdir, rename, rm, stat } from 'node:fs/promises'
import { dirname } from 'node:path'

export interface RotatingFileOptions {
  path: string
  /** Size past which the file is rotated before the next batch (a batch larger than it still goes whole). */
  maxBytes: number
  /** Rotated files kept beside the current one (audit.log.1 ... audit.log.<keep>). */
  keep: number
}

export class RotatingFile {
  readonly #options: RotatingFileOptions
  /** Bytes in the current file; undefined until the first write reads it (the file may predate the process). */
  #size: number | undefined

  constructor (options: RotatingFileOptions) {
    this.#options = options
  }

  /** Appends `text` (whole lines), rotating first when it would not fit. */
  async append (text: string): Promise<void> {
    const { path, maxBytes } = this.#options
    const bytes = Buffer.byteLength(text)
    if (this.#size === undefined) this.#size = await this.#currentSize()
    if (this.#size > 0 && this.#size + bytes > maxBytes) await this.#rotate()
    await appendFile(path, text, { mode: 0o600 })
    this.#size += bytes
  }

  async #currentSize (): Promise<number> {
    await mkdir(dirname(this.#options.path), { recursive: true })
    try {
      return (await stat(this.#options.path)).size
    } catch {
      return 0
    }
  }

  async #rotate (): Promise<void> {
    const { path, keep } = this.#options
    await rm(`${path}.${keep}`, { force: true })
    for (let n = keep - 1; n >= 1; n--) {
      await rename(`${path}.${n}`, `${path}.${n + 1}`).catch(() => {})
    }
    if (keep >= 1) await rename(path, `${path}.1`)
    else await rm(path, { force: true })
    this.#size = 0
  }
}
