// The names of the temp files of atomic writes: recognisable, so leftovers of a crash can be
// removed at start, hidden from search_files and refused as paths (a model cannot read, write or
// plant one).
import { randomBytes } from 'node:crypto'

const TEMP_NAME = /^\..*\.[0-9a-f]{16}\.tmp$/s

/** `.<name, at most 40 characters>.<16 hex digits>.tmp`, beside the file it will replace. */
export function tempNameFor (base: string): string {
  return `.${Array.from(base).slice(0, 40).join('')}.${randomBytes(8).toString('hex')}.tmp`
}

export function isTempName (name: string): boolean {
  return TEMP_NAME.test(name)
}
