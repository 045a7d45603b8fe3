// The console lines of one execution, inside the output budget (code.maxOutputBytes) that they share
// with the result: lines past it are dropped, and one final line says how many.

export class LogSink {
  readonly #limit: number
  readonly #lines: string[] = []
  readonly #sizes: number[] = []
  #bytes = 0
  #dropped = 0

  constructor (limitBytes: number) {
    this.#limit = limitBytes
  }

  add (line: string): void {
    if (this.#dropped > 0) {
      this.#dropped++
      return
    }
    const size = Buffer.byteLength(line)
    if (this.#bytes + size > this.#limit) {
      this.#dropped++
      return
    }
    this.#lines.push(line)
    this.#sizes.push(size)
    this.#bytes += size
  }

  /** The lines that fit beside a result of `resultBytes`, then the line that counts the dropped ones. */
  finish (resultBytes: number): string[] {
    const budget = this.#limit - resultBytes
    let kept = this.#lines.length
    let bytes = this.#bytes
    while (kept > 0 && bytes > budget) bytes -= this.#sizes[--kept]
    const dropped = this.#dropped + this.#lines.length - kept
    const lines = this.#lines.slice(0, kept)
    if (dropped > 0) {
      lines.push(`[${dropped} more log line${dropped === 1 ? '' : 's'} dropped: the result and the logs may take at most ${this.#limit} bytes (code.maxOutputBytes)]`)
    }
    return lines
  }
}
