// What the provider said when it refused: an OAuth error answer (RFC 6749 §5.2) reads as its code
// and description, the words an operator can act on; anything else as its message.
import * as oauth from 'oauth4webapi'
import { messageOf } from '../shared/objects.ts'

export function providerMessage (err: unknown): string {
  if (err instanceof oauth.ResponseBodyError) return `${err.error}${err.error_description === undefined ? '' : `: ${err.error_description}`} (HTTP ${err.status})`
  return messageOf(err)
}
