// JSON bodies only, parsed safely. Fastify's own parser answers "not valid JSON" even for a
// prototype-poisoning attempt, which misleads a client; this one says which of the two it was. Any
// other content type is refused (415), so a text/plain body never reaches a tool as a string.
import fp from 'fastify-plugin'
import secureJson from 'secure-json-parse'
import { BadRequestError } from '../shared/errors.ts'
import { FORBIDDEN_JSON_KEYS as FORBIDDEN_KEYS } from '../shared/objects.ts'

/** Why a body failed the safe parse: not JSON at all, or JSON holding a forbidden key. */
function whyRefused (text: string): string {
  try {
    JSON.parse(text)
  } catch (err) {
    return `the body is not valid JSON: ${(err as Error).message}`
  }
  // It is JSON, so the safe parse refused a __proto__ or constructor key: refused rather than
  // stripped, so the caller learns its arguments would not arrive as sent.
  return 'the body contains a forbidden "__proto__" or "constructor" key'
}

export default fp(async function jsonBody (app) {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string
    if (text.length === 0) {
      done(new BadRequestError('the body is empty but Content-Type says application/json'), undefined)
      return
    }
    let value: unknown
    try {
      value = secureJson.parse(text, undefined, FORBIDDEN_KEYS)
    } catch {
      done(new BadRequestError(whyRefused(text)), undefined)
      return
    }
    done(null, value)
  })
}, { name: 'json-body' })
