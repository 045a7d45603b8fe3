// Validates the coerced arguments; the error names every failing path so the model can correct itself.
import { toolError } from '../../registry/tool-result.ts'
import { entryOf, type Step } from '../pipeline.ts'
import { validateArguments } from '../validate.ts'

export const validateStep: Step = function validate (call, next) {
  const entry = entryOf(call)
  const result = validateArguments(call.args, entry.schema.parameters, entry.origin.kind !== 'mcp')
  if (!result.valid && result.schemaBroken) {
    call.logger.error({ reason: result.message }, 'tool schema does not compile')
    const message = `Tool ${entry.name} is unavailable: ${result.message}`
    return { status: 'unavailable', content: toolError(message), message }
  }
  if (!result.valid) {
    const message = `${result.message} (tool ${entry.name})`
    return { status: 'invalid', content: toolError(message), message }
  }
  return next(call)
}
