// TypeScript declarations of tools (format=typescript): the JSON Schema → type conversion, and that
// the declarations of real tools (the built-in ones, and 248 tools of 15 published MCP servers from
// bench/search) type-check with the TypeScript compiler, accept a right call and refuse a wrong one.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import ts from 'typescript'
import { typescriptDeclarations, typescriptTypeOf, type DeclaredTool } from '../../src/definitions/formats/typescript.ts'
import type { OpenAIFunctionTool } from '../../src/definitions/formats/shapes.ts'
import { buildTestApp } from '../helpers/app.ts'

interface CatalogueServer { tools: Array<{ name: string, description?: string, inputSchema: Record<string, unknown> }> }

async function realTools (): Promise<DeclaredTool[]> {
  const catalogue = JSON.parse(await readFile(new URL('../../bench/search/catalogue.json', import.meta.url), 'utf8')) as CatalogueServer[]
  return catalogue.flatMap((server) => server.tools.map((tool) => ({ name: tool.name, description: tool.description ?? '', parameters: tool.inputSchema })))
}

const FILE = '/snippet.ts'
const OPTIONS: ts.CompilerOptions = { target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'], strict: true, noEmit: true, types: [] }

/** The compiler's diagnostics (syntax and types) for one snippet, as text. */
function diagnostics (source: string): string[] {
  const host = ts.createCompilerHost(OPTIONS)
  const getSourceFile = host.getSourceFile.bind(host)
  host.getSourceFile = (name, version, ...rest) => name === FILE ? ts.createSourceFile(name, source, version) : getSourceFile(name, version, ...rest)
  const fileExists = host.fileExists.bind(host)
  host.fileExists = (name) => name === FILE || fileExists(name)
  const program = ts.createProgram([FILE], OPTIONS, host)
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName === FILE ? d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1 : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`)
}

function lineOf (source: string, diagnostic: string): string {
  const line = Number(diagnostic.split(':')[0])
  return Number.isInteger(line) && line > 0 ? source.split('\n')[line - 1] : ''
}

test('the declarations of 248 real MCP tools type-check; a right call passes and a wrong one is refused', async () => {
  const tools = [...await realTools(), {
    name: 'read_file',
    description: 'Read a text file */ from the workspace',
    parameters: { type: 'object', properties: { path: { type: 'string', description: 'Path of the file' }, offset: { type: 'integer', minimum: 1 } }, required: ['path'] }
  }]
  assert.ok(tools.length > 200)
  const declarations = typescriptDeclarations(tools)
  const right = `${declarations}async function f () { await tools.read_file({ path: 'x' }); await tools.read_file({ path: 'x', offset: 3 }); await tools['get-sum']({ a: 1, b: 2 }) }\n`
  const found = diagnostics(right)
  assert.deepEqual(found, [], found.map((d) => `${d}\n  ${lineOf(right, d)}`).join('\n'))
  const wrong = `${declarations}async function f () { await tools.read_file({ nope: 1 }) }\n`
  const refused = diagnostics(wrong)
  assert.equal(refused.length, 1, refused.join('\n'))
  assert.match(refused[0], /nope/)
  assert.ok(diagnostics(`${declarations}tools.no_such_tool({})\n`).length > 0)
})

test('the declarations of the built-in tools type-check, and a call to read_file with its own arguments passes', async (t) => {
  const { app } = await buildTestApp(t, {}, { builtins: true })
  const tools = ((await app.inject('/definitions?toolsets=all')).json() as OpenAIFunctionTool[]).map((tool) => tool.function)
  assert.ok(tools.some((tool) => tool.name === 'read_file'), tools.map((tool) => tool.name).join(', '))
  const source = `${typescriptDeclarations(tools)}async function f () { await tools.read_file({ path: 'notes.txt' }) }\n`
  const found = diagnostics(source)
  assert.deepEqual(found, [], found.map((d) => `${d}\n  ${lineOf(source, d)}`).join('\n'))
  assert.equal(diagnostics(`${typescriptDeclarations(tools)}tools.read_file({ nope: 1 })\n`).length, 1)
})

test('a typical tool: JSDoc from descriptions, ? for optional properties, hints and defaults, 2-space indentation', () => {
  const text = typescriptDeclarations([{
    name: 'read_file',
    description: 'Read a text file',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Path of the file' },
        offset: { type: 'integer', description: 'First line', minimum: 1, default: 1 },
        url: { type: 'string', format: 'uri' }
      },
      required: ['path']
    }
  }])
  assert.equal(text, [
    'declare const tools: {',
    '  /** Read a text file */',
    '  read_file(args: {',
    '    /** Path of the file */',
    '    path: string',
    '    /** First line (minimum: 1) @default 1 */',
    '    offset?: number',
    '    /** format: uri */',
    '    url?: string',
    '  }): Promise<unknown>',
    '}',
    ''
  ].join('\n'))
  assert.ok(!/\n\s*\n/.test(text), 'no blank lines')
})

test('names that are not identifiers are quoted; `*/` in a description cannot end the comment', () => {
  const text = typescriptDeclarations([{
    name: 'my-tool',
    description: 'Ends */ here\n\nand goes on',
    parameters: { type: 'object', properties: { 'a-b': { type: 'string', description: 'x */ y' }, "it's": { type: 'number' }, $ok: { type: 'boolean' } } }
  }])
  assert.match(text, /^ {2}'my-tool'\(args: \{$/m)
  assert.match(text, /^ {4}'a-b'\?: string$/m)
  assert.match(text, /^ {4}'it\\'s'\?: number$/m)
  assert.match(text, /^ {4}\$ok\?: boolean$/m)
  assert.ok(!text.includes('x */ y') && text.includes('x *\\/ y'))
  assert.match(text, / {2}\/\*\*\n {3}\* Ends \*\\\/ here\n {3}\* and goes on\n {3}\*\/\n/)
  assert.deepEqual(diagnostics(`${text}tools['my-tool']({ 'a-b': 'x', "it's": 1 })\n`), [])
})

test('scalars, enums, const, type lists, nullable and the empty schema', () => {
  assert.equal(typescriptTypeOf({ type: 'string' }), 'string')
  assert.equal(typescriptTypeOf({ type: 'integer' }), 'number')
  assert.equal(typescriptTypeOf({ type: 'null' }), 'null')
  assert.equal(typescriptTypeOf({ type: ['integer', 'number', 'null'] }), 'number | null')
  assert.equal(typescriptTypeOf({ enum: ['a', "b'c", 1, null, true] }), '"a" | "b\'c" | 1 | null | true')
  assert.equal(typescriptTypeOf({ const: 'x' }), '"x"')
  assert.equal(typescriptTypeOf({ type: 'string', nullable: true }), 'string | null')
  assert.equal(typescriptTypeOf({}), 'unknown')
  assert.equal(typescriptTypeOf({ description: 'anything' }), 'unknown')
  assert.equal(typescriptTypeOf({ type: 'frobnicate' }), 'unknown')
})

test('unions, intersections, arrays and tuples', () => {
  assert.equal(typescriptTypeOf({ anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] }), 'string | string[]')
  assert.equal(typescriptTypeOf({ oneOf: [{ type: 'string' }, { type: 'number' }] }), 'string | number')
  assert.equal(typescriptTypeOf({ anyOf: [{ type: 'string' }, {}] }), 'unknown')
  assert.equal(typescriptTypeOf({ type: 'array', items: { type: ['string', 'number'] } }), '(string | number)[]')
  assert.equal(typescriptTypeOf({ type: 'array' }), 'unknown[]')
  assert.equal(typescriptTypeOf({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false, minItems: 1 }), '[string, number?]')
  assert.equal(typescriptTypeOf({ type: 'array', items: [{ type: 'string' }], additionalItems: { type: 'boolean' }, minItems: 1 }), '[string, ...boolean[]]')
  assert.equal(typescriptTypeOf({
    allOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { type: 'object', properties: { b: { type: 'number' } } }]
  }), '{\n  a: string\n} & {\n  b?: number\n}')
  // `type: object` beside a union of shapes adds nothing; a required-only member says nothing of types.
  assert.equal(typescriptTypeOf({ type: 'object', anyOf: [{ properties: { a: { const: 1 } } }, { properties: { b: { const: 2 } } }] }), '{\n  a?: 1\n} | {\n  b?: 2\n}')
  assert.equal(typescriptTypeOf({ type: 'string', anyOf: [{ format: 'email' }, { format: 'uri' }] }), 'string')
  assert.equal(typescriptTypeOf({ type: 'string', allOf: [{ enum: ['a', 'b'] }] }), 'string & ("a" | "b")')
})

test('objects: maps, closed objects, index signatures beside properties', () => {
  assert.equal(typescriptTypeOf({ type: 'object' }), '{ [key: string]: unknown }')
  assert.equal(typescriptTypeOf({ type: 'object', additionalProperties: { type: 'number' } }), '{ [key: string]: number }')
  assert.equal(typescriptTypeOf({ type: 'object', additionalProperties: false }), '{}')
  assert.equal(typescriptTypeOf({ type: 'object', properties: {} }), '{}')
  assert.equal(typescriptTypeOf({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'number' } }),
    '{\n  a?: string\n  [key: string]: number | string\n}')
  assert.equal(typescriptTypeOf({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true }), '{\n  a?: string\n  [key: string]: unknown\n}')
  const nested = typescriptTypeOf({ type: 'object', properties: { o: { type: 'object', description: 'inner', properties: { x: { type: 'string' } }, required: ['x'] } } })
  assert.equal(nested, '{\n  /** inner */\n  o?: {\n    x: string\n  }\n}')
  assert.deepEqual(diagnostics(`declare const v: ${typescriptTypeOf({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'object', properties: { c: { type: 'integer' } } } }, additionalProperties: { type: 'boolean' } })}\n`), [])
})

test('$ref to $defs and definitions is inlined; a cycle becomes unknown instead of recursing', () => {
  const defs = { $defs: { point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } }, definitions: { id: { type: 'string' } } }
  assert.equal(typescriptTypeOf({ ...defs, type: 'object', properties: { p: { $ref: '#/$defs/point' }, id: { $ref: '#/definitions/id' } } }),
    '{\n  p?: {\n    x: number\n  }\n  id?: string\n}')
  const cyclic = { $defs: { node: { type: 'object', properties: { value: { type: 'integer' }, next: { $ref: '#/$defs/node' } } } }, $ref: '#/$defs/node' }
  assert.equal(typescriptTypeOf(cyclic), '{\n  value?: number\n  next?: unknown\n}')
  // Mutual recursion and the root itself.
  const mutual = { $defs: { a: { type: 'object', properties: { b: { $ref: '#/$defs/b' } } }, b: { type: 'array', items: { $ref: '#/$defs/a' } } }, $ref: '#/$defs/a' }
  assert.equal(typescriptTypeOf(mutual), '{\n  b?: unknown[]\n}')
  assert.equal(typescriptTypeOf({ type: 'object', properties: { self: { $ref: '#' } } }), '{\n  self?: {\n    self?: unknown\n  }\n}')
  assert.equal(typescriptTypeOf({ $ref: 'https://example.com/schema.json' }), 'unknown')
  assert.equal(typescriptTypeOf({ $ref: '#/$defs/missing' }), 'unknown')
})

test('nesting past 6 levels and a schema that would multiply through $refs stay bounded', () => {
  let deep: Record<string, unknown> = { type: 'string' }
  for (let i = 0; i < 20; i++) deep = { type: 'object', properties: { d: deep } }
  const text = typescriptTypeOf(deep)
  // The arguments' object, then 6 levels of objects below it; the 7th is unknown.
  assert.equal((text.match(/\{/g) ?? []).length, 7)
  assert.equal((text.match(/d\?: unknown/g) ?? []).length, 1)
  // Each level refers to the next ten times: inlined naively this is 10^6 lines.
  const $defs: Record<string, unknown> = { l6: { type: 'string' } }
  for (let level = 5; level >= 0; level--) {
    $defs[`l${level}`] = { type: 'object', properties: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i}`, { $ref: `#/$defs/l${level + 1}` }])) }
  }
  const wide = typescriptTypeOf({ $defs, $ref: '#/$defs/l0' })
  assert.ok(wide.split('\n').length < 30_000, `${wide.split('\n').length} lines`)
  assert.deepEqual(diagnostics(`declare const v: ${wide}\n`), [])
})
