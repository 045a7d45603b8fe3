// Coerces the model's imprecise argument types towards the tool's schema before validation.
import { coerceArguments } from '../../json-schema/coerce.ts'
import { dropOptionalNulls } from '../../json-schema/optional-nulls.ts'
import { entryOf, type Step } from '../call/pipeline.ts'
import { convertsValidStrings } from '../../json-schema/schema-types.ts'
import { argumentsValid } from '../../json-schema/validate.ts'

export const coerceStep: Step = async function coerce (call, next) {
  const entry = entryOf(call)
  const { parameters } = entry.schema
  const trusted = entry.origin.kind !== 'mcp'
  // Arguments that already validate are left as they are: coercion would not change them (a
  // property test holds it), and one compiled check is cheaper than walking the schema. The
  // exception is a union listing a type before `string` (§7: the listed order decides), where a
  // valid string may still convert; the conversion is kept only if the result validates too.
  if (!argumentsValid(call.args, parameters, trusted)) {
    // A null the schema refuses for an optional property means "absent" (strict-mode definitions
    // make optional properties nullable); only arguments that fail validation can hold one.
    call.args = coerceArguments(dropOptionalNulls(call.args, parameters), parameters)
  } else if (convertsValidStrings(parameters)) {
    const coerced = coerceArguments(call.args, parameters)
    if (argumentsValid(coerced, parameters, trusted)) call.args = coerced
  }
  return await next(call)
}
