// Coerces the model's imprecise argument types towards the tool's schema before validation.
import { coerceArguments } from '../coerce.ts'
import { entryOf, type Step } from '../pipeline.ts'

export const coerceStep: Step = function coerce (call, next) {
  call.args = coerceArguments(call.args, entryOf(call).schema.parameters)
  return next(call)
}
