// Validates the coerced arguments; the error names every failing path so the model can correct itself.
import { failed } from '../call/outcome.ts'
import { entryOf, type Step } from '../call/pipeline.ts'
import { validateArguments } from '../../json-schema/validate.ts'

export const validateStep: Step = async function validate (call, next) {
  const entry = entryOf(call)
  const result = validateArguments(call.args, entry.schema.parameters, entry.origin.kind !== 'mcp')
  if (!result.valid && result.schemaBroken) {
    call.logger.error({ reason: result.message }, 'tool schema does not compile')
    return failed('unavailable', `Tool ${entry.name} is unavailable: ${result.message}`)
  }
  if (!result.valid) {
    return failed('invalid', `${result.message} (tool ${entry.name})`)
  }
  return await next(call)
}
