// Small registrations for tests: a valid tool with overridable fields.
import type { RegisterOptions } from '../../src/registry/types.ts'
import { toolResult } from '../../src/registry/tool-result.ts'

export function fixtureTool (name: string, overrides: Partial<RegisterOptions> = {}): RegisterOptions {
  return {
    name,
    toolset: 'testing',
    schema: {
      description: `The ${name} fixture tool`,
      parameters: { type: 'object', properties: { text: { type: 'string' } } }
    },
    handler: async (args) => toolResult({ echoed: args.text ?? null }),
    ...overrides
  }
}
