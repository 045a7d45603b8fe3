// Header validation for a route that sets its own validatorCompiler (to read its body itself): the
// same Ajv settings as the app's (no coercion, nothing removed), since Fastify's default compiler is
// not reachable from a route.
import { Ajv } from 'ajv'

type Validate = ReturnType<Ajv['compile']>

let ajv: Ajv | undefined

/**
 * The validator of `schema`, compiled on its first call: Fastify asks for it while the routes
 * register, and a new Ajv instance (its meta-schema first) cost start-up more than anything else
 * of the route. Fastify reads `errors` off the function it was given, so they are copied there.
 */
export function headerValidator (schema: object): Validate {
  let compiled: Validate | undefined
  const validate = ((data: unknown) => {
    compiled ??= (ajv ??= new Ajv({ coerceTypes: false, removeAdditional: false, useDefaults: true, allErrors: false, strict: false, addUsedSchema: false })).compile(schema)
    const valid = compiled(data)
    validate.errors = compiled.errors
    return valid
  }) as Validate
  return validate
}
