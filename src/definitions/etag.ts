// The ETag of a /definitions answer: a hash of the bytes served, salted with the variant when two
// variants could serve the same bytes (`[]`) and must not share a 304.
import { createHash } from 'node:crypto'

export function etagOf (json: string, salt?: string): string {
  const hash = createHash('sha256')
  if (salt !== undefined) hash.update(salt).update('\n')
  return `"${hash.update(json).digest('base64url').slice(0, 27)}"`
}
