// The JSON body parser: Fastify's own answers "not valid JSON" even for a prototype-poisoning
// attempt, which misleads a client; this one says which of the two it was, with the parse error.
import type { FastifyInstance } from 'fastify'
import secureJson from 'secure-json-parse'
import { BadRequestError } from '../errors.ts'

export function installJsonParser (app: FastifyInstance): void {
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string
    if (text.length === 0) {
      done(new BadRequestError('the body is empty but Content-Type says application/json'), undefined)
      return
    }
    try {
      done(null, secureJson.parse(text, { protoAction: 'error', constructorAction: 'error' }))
    } catch (err) {
      const poisoned = /prototype property/i.test((err as Error).message)
      done(new BadRequestError(poisoned
        ? 'the body contains a forbidden "__proto__" or "constructor" key'
        : `the body is not valid JSON: ${(err as Error).message}`), undefined)
    }
  })
}
