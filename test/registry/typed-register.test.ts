// The typed registration API: a tool declares its parameters once, as a literal JSON Schema or a
// TypeBox type, and its handler's arguments take their type from it (tsc checks the expectations
// below, `@ts-expect-error` lines included); the registry stores plain JSON Schema either way.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ToolRegistry } from '../../src/registry/registry.ts'
import { withRegistrationTarget } from '../../src/registry/scope.ts'
import { registry, toolResult, Type, type ArgumentsOf, type JsonSchema, type ToolContext } from '../../src/registry/index.ts'

/** Registers through the public `registry`, as a tool module does, into a registry of the test's own. */
async function registered (register: () => void): Promise<ToolRegistry> {
  const target = new ToolRegistry()
  await withRegistrationTarget(target, async () => { register() })
  return target
}

const ctx = { config: {} } as unknown as ToolContext

test('a literal schema types the arguments and is stored as the very object declared', async () => {
  const parameters = {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'A file.' },
      mode: { type: 'string', enum: ['replace', 'patch'] },
      limit: { type: 'integer', minimum: 1, default: 10 },
      urls: { type: 'array', items: { type: 'string' } },
      force: { type: 'boolean' }
    },
    required: ['path'],
    additionalProperties: false
  } as const
  const target = await registered(() => registry.register({
    name: 'typed_literal',
    toolset: 'typed',
    schema: { parameters },
    handler: (args) => {
      const path: string = args.path
      const mode: 'replace' | 'patch' | undefined = args.mode
      const urls: string[] | undefined = args.urls
      const force: boolean | undefined = args.force
      // A default is not filled in by the gateway: an argument that is not required may be absent.
      // @ts-expect-error limit may be undefined
      const limit: number = args.limit
      // @ts-expect-error a string is not a number
      const wrong: number = args.path
      // @ts-expect-error not a declared parameter
      const unknown: unknown = args.other
      return toolResult({ path, mode, urls, force, limit, wrong, unknown })
    }
  }))
  const entry = target.getEntry('typed_literal')
  assert.equal(entry?.schema.parameters, parameters, 'the same object, nothing copied')
  assert.deepEqual(JSON.parse(await entry.handler({ path: 'a.txt', mode: 'patch' }, ctx) as string), { path: 'a.txt', mode: 'patch', wrong: 'a.txt' })
})

test('a schema written inline in register types the arguments too', async () => {
  const target = await registered(() => registry.register({
    name: 'typed_inline',
    toolset: 'typed',
    schema: { parameters: { type: 'object', properties: { n: { type: 'number' }, tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } } }, required: ['n', 'tags'] } },
    handler: (args) => {
      const tags: Array<'a' | 'b'> = args.tags
      return toolResult({ double: args.n * 2, tags })
    }
  }))
  assert.deepEqual(target.getEntry('typed_inline')?.schema.parameters, {
    type: 'object', properties: { n: { type: 'number' }, tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } } }, required: ['n', 'tags']
  })
})

test('a TypeBox type types the arguments and is stored as the plain JSON Schema it serves', async () => {
  const parameters = Type.Object({
    query: Type.String({ minLength: 1, description: 'What to look for.' }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 20 }))
  }, { additionalProperties: false })
  const target = await registered(() => registry.register({
    name: 'typed_typebox',
    toolset: 'typed',
    schema: { description: 'Looks.', parameters },
    handler: async (args, context) => {
      const query: string = args.query
      // @ts-expect-error limit is optional
      const limit: number = args.limit
      return toolResult({ query, limit: limit ?? 5, callId: context.callId })
    }
  }))
  const stored = target.getEntry('typed_typebox')?.schema.parameters as JsonSchema
  assert.equal(JSON.stringify(stored), JSON.stringify(parameters), 'the same JSON')
  assert.deepEqual(stored, JSON.parse(JSON.stringify(parameters)))
  const hidden = (schema: object): string[] => Reflect.ownKeys(schema).filter((key) => typeof key === 'symbol' || key.startsWith('~')).map(String)
  assert.deepEqual(hidden(parameters), ['~kind'], 'TypeBox marks its types')
  assert.deepEqual([hidden(stored), hidden(stored.properties as object), hidden((stored.properties as Record<string, object>).limit)], [[], [], []], 'the registry keeps none of the marks')
  assert.equal(Object.getPrototypeOf(stored), Object.prototype)
})

test('a schema typed only as JsonSchema leaves the arguments Record<string, unknown>, as before', async () => {
  const parameters: JsonSchema = { type: 'object', properties: { text: { type: 'string' } } }
  const target = await registered(() => registry.register({
    name: 'typed_loose',
    toolset: 'typed',
    schema: { parameters },
    handler: (args) => {
      const same: Record<string, unknown> = args
      // @ts-expect-error unknown until checked
      const text: string = args.text
      return toolResult({ text: typeof same.text === 'string' ? same.text : text })
    }
  }))
  assert.equal(target.getEntry('typed_loose')?.schema.parameters, parameters)
})

test('ArgumentsOf names the arguments type for code beside the handler', () => {
  const parameters = { type: 'object', properties: { id: { type: 'string' }, since: { type: 'integer' } }, required: ['id'] } as const
  const describe = (args: ArgumentsOf<typeof parameters>): string => `${args.id}@${args.since ?? 0}`
  assert.deepEqual(parameters.required, ['id'])
  assert.equal(describe({ id: 'proc_1' }), 'proc_1@0')
  // @ts-expect-error id is required
  assert.equal(describe({ since: 1 }), 'undefined@1')
})
