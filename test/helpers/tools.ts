// Small registrations for tests: a valid tool with overridable fields.
import type { RegisterOptions } from '../../src/registry/types.ts'
import { toolResult } from '../../src/registry/tool-result.ts'
import type { ToolRegistry } from '../../src/registry/registry.ts'

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

/** Every tool name registered now, sorted: what a test asserts about a registry's contents. */
export function toolNames (registry: ToolRegistry): string[] {
  return [...registry.snapshot().tools.keys()].sort()
}
