// One read of a kept result, for GET /results/:id and the read_result tool alike: the slice asked
// for, the whole length, and where to go on, so a reader pages through without knowing the size.
import { BadRequestError } from '../shared/errors.ts'
import type { ResultPage } from '../registry/types.ts'
import type { KeptResult } from './result-store.ts'

/** What GET /results/:id answers when `limit` is absent, and the most it answers at once. */
export const DEFAULT_HTTP_READ_CHARS = 100_000
export const MAX_HTTP_READ_CHARS = 1_000_000

/** The characters of `result` from `offset`, at most `limit`; an offset past the end is the caller's mistake. */
export function pageOf (result: KeptResult, offset: number, limit: number): ResultPage {
  const { id, length } = result
  if (offset > length) {
    throw new BadRequestError(`offset ${offset} is past the end of result ${id}, which has ${length} characters (offsets 0 to ${length})`)
  }
  const content = result.slice(offset, Math.min(length, offset + limit))
  const next = offset + content.length
  return { id, offset, content, totalLength: length, nextOffset: next < length ? next : null }
}
