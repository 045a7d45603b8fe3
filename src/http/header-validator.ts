// Header validation for a route that sets its own validatorCompiler (to read its body itself): the
// same Ajv settings as the app's (no coercion, nothing removed), since Fastify's default compiler is
// not reachable from a route.
import { Ajv } from 'ajv'

const ajv = new Ajv({ coerceTypes: false, removeAdditional: false, useDefaults: true, allErrors: false, strict: false, addUsedSchema: false })

export function headerValidator (schema: object): ReturnType<Ajv['compile']> {
  return ajv.compile(schema)
}
