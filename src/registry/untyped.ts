// Where a typed registration (RegisterOptions<P>, its handler taking ArgumentsOf<P>) becomes what
// the registry stores: every handler as `(args: Record<string, unknown>, ctx)`, every schema as
// plain JSON Schema. The one cast of the typed API is here, and it is honest: the dispatcher
// validates (and coerces) the arguments against `schema.parameters` before the handler runs, so a
// handler only ever receives arguments of the type its schema declares.
import { isRecord } from '../shared/objects.ts'
import type { RegisterOptions } from './types.ts'

export function untyped<P extends object> (options: RegisterOptions<P>): RegisterOptions {
  const plain = options as unknown as RegisterOptions
  const parameters: unknown = plain?.schema?.parameters
  // A literal schema is kept as the very object declared. A TypeBox type is JSON Schema too, with
  // hidden (non-enumerable) `~kind` markers: the registry keeps the JSON it serves, without them.
  if (!isRecord(parameters) || !Object.hasOwn(parameters, '~kind')) return plain
  return { ...plain, schema: { ...plain.schema, parameters: JSON.parse(JSON.stringify(parameters)) } }
}
