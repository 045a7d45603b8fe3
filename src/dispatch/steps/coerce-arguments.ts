// Coerces the model's imprecise argument types towards the tool's schema before validation.
import { coerceArguments } from '../coerce.ts'
import { entryOf, type Step } from '../pipeline.ts'
import { argumentsValid } from '../validate.ts'

export const coerceStep: Step = function coerce (call, next) {
  const entry = entryOf(call)
  // Arguments that already validate are left as they are: coercion would not change them (a
  // property test holds it), and one compiled check is cheaper than walking the schema.
  if (!argumentsValid(call.args, entry.schema.parameters, entry.origin.kind !== 'mcp')) {
    call.args = coerceArguments(call.args, entry.schema.parameters)
  }
  return next(call)
}
