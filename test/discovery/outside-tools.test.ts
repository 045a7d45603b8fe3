// docs/tools.md's "Adding your own tools", end to end: a folder outside the repository holds a tool
// module that imports 'tool-gateway/registry'; EXTRA_TOOLS_DIRS names it; the gateway lists the
// tool beside the built-in ones and runs it. In-process, then as `npm run dev` runs (the sources),
// then as `npm start` and the container run (compiled files, here in another folder, `node dist/src/server.js`).
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { loadConfig } from '../../src/config/load.ts'
import { withTimeout } from '../../src/shared/timers.ts'
import { buildTestApp } from '../helpers/app.ts'
import { compiledApp } from '../helpers/compiled-app.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const START_TIMEOUT_MS = 30_000

interface TestContext { after: (fn: () => Promise<void> | void) => void }

const GREET = `// greet.ts: a tool of my own, outside the gateway.
import { registry, toolResult } from 'tool-gateway/registry'
import type { ToolContext } from 'tool-gateway/registry'
import { greetingFor } from './lib/words.ts'

registry.register({
  name: 'greet',
  toolset: 'greetings',
  description: 'Greets someone by name.',
  schema: { parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false } },
  handler: async (args, ctx: ToolContext) => toolResult({ greeting: greetingFor(String(args.name)), callId: ctx.callId })
})
`
const WORDS = 'export function greetingFor (name: string): string {\n  return \'Hello, \' + name + \'!\'\n}\n'
const SHOUT = `// shout.ts: a typed tool of my own, its parameters a TypeBox type.
import { registry, toolResult, Type } from 'tool-gateway/registry'

const parameters = Type.Object({
  text: Type.String({ minLength: 1, description: 'What to shout.' }),
  times: Type.Optional(Type.Integer({ minimum: 1, maximum: 3, description: 'How many times; default 1.' }))
}, { additionalProperties: false })

registry.register({
  name: 'shout',
  toolset: 'typed',
  description: 'Shouts a text.',
  schema: { parameters },
  handler: async (args) => toolResult({ shouted: Array(args.times ?? 1).fill(args.text.toUpperCase()).join(' ') })
})
`

/** A folder of tools outside the repository, removed after the test. */
async function myTools (t: TestContext): Promise<string> {
  const base = await mkdtemp(join(tmpdir(), 'gw-my-tools-'))
  t.after(() => rm(base, { recursive: true, force: true }))
  const dir = join(base, 'my-tools')
  await mkdir(join(dir, 'lib'), { recursive: true })
  await writeFile(join(dir, 'greet.ts'), GREET)
  await writeFile(join(dir, 'lib', 'words.ts'), WORDS)
  // Typed, with TypeBox's Type from the registry module: the compiled gateway serves it too.
  await writeFile(join(dir, 'shout.ts'), SHOUT)
  assert.ok(relative(ROOT, dir).startsWith('..'), `${dir} is outside ${ROOT}`)
  return dir
}

interface Server { port: number, lines: () => Array<Record<string, unknown>>, stop: () => Promise<number | null> }

/** Starts the gateway as a child with exactly `env`; resolves once it listens. */
async function startGateway (t: TestContext, args: string[], cwd: string, env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  t.after(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  let output = ''
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const lines = () => output.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>)
  const listening = new Promise<number>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk
      const match = /"msg":"Server listening at http:\/\/[^"]+:(\d+)"/.exec(output)
      if (match) resolve(Number(match[1]))
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
    exited.then((code) => reject(new Error(`the gateway exited (${code}) before listening:\n${output}`)))
  })
  const port = await withTimeout(listening, START_TIMEOUT_MS, () => { throw new Error(`no "Server listening" within ${START_TIMEOUT_MS} ms:\n${output}`) })
  return {
    port,
    lines,
    stop: async () => {
      child.kill('SIGTERM')
      return await exited
    }
  }
}

/** What a started gateway must show: discovery listed the tool beside the built-ins, and it runs. */
async function assertServesGreet (server: Server): Promise<void> {
  const done = server.lines().find((line) => line.msg === 'tool discovery done')
  assert.ok(done, 'the discovery line is logged')
  assert.ok((done.tools as string[]).includes('greet') && (done.tools as string[]).includes('read_file'), JSON.stringify(done))
  assert.deepEqual([done.skipped, done.registeredNothing], [0, 0])
  const base = `http://127.0.0.1:${server.port}`
  const definitions = await (await fetch(`${base}/definitions?toolsets=greetings`)).json() as Array<{ function: { name: string } }>
  assert.deepEqual(definitions.map((tool) => tool.function.name), ['greet'])
  const res = await fetch(`${base}/dispatch/greet`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-tool-call-id': 'call_1' }, body: '{"name": "Ada"}'
  })
  const body = await res.json() as { ok: boolean, content: string }
  assert.equal(res.status, 200, JSON.stringify(body))
  assert.deepEqual(JSON.parse(body.content), { greeting: 'Hello, Ada!', callId: 'call_1' })
  const shout = await fetch(`${base}/dispatch/shout`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text": "hey", "times": 2}' })
  assert.deepEqual(JSON.parse(((await shout.json()) as { content: string }).content), { shouted: 'HEY HEY' })
}

const COUNT = `// count.ts: a typed tool of my own, its parameters a literal JSON Schema.
import { registry, toolResult } from 'tool-gateway/registry'
import type { ArgumentsOf } from 'tool-gateway/registry'

const parameters = {
  type: 'object',
  properties: { words: { type: 'array', items: { type: 'string' }, minItems: 1 }, unit: { type: 'string', enum: ['words', 'letters'] } },
  required: ['words'],
  additionalProperties: false
} as const

function count ({ words, unit = 'words' }: ArgumentsOf<typeof parameters>): number {
  return unit === 'words' ? words.length : words.join('').length
}

registry.register({
  name: 'count',
  toolset: 'typed',
  description: 'Counts words or letters.',
  schema: { parameters },
  handler: (args) => toolResult({ count: count(args), unit: args.unit ?? 'words' })
})
`
/** A typed tool whose handler misuses its arguments: the type checker must refuse it. */
const MISTYPED = `import { registry, toolResult, Type } from 'tool-gateway/registry'

registry.register({
  name: 'mistyped',
  toolset: 'typed',
  schema: { parameters: Type.Object({ text: Type.String(), times: Type.Optional(Type.Integer()) }) },
  handler: async (args) => {
    const times: number = args.times
    return toolResult({ shouted: args.text.repeat(times), loud: args.loud })
  }
})
`

/** A folder of typed tools outside the repository (an ES module package, as a TypeScript project of its own would be). */
async function typedTools (t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-typed-tools-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n')
  await writeFile(join(dir, 'shout.ts'), SHOUT)
  await writeFile(join(dir, 'count.ts'), COUNT)
  return dir
}

/**
 * Type-checks outside modules as their author would: strict, 'tool-gateway/registry' mapped to the
 * registry's sources (a `paths` entry of their tsconfig). Answers the diagnostics of `files` only.
 */
function typeCheck (files: string[]): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2024,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules', '@types')],
    paths: { 'tool-gateway/registry': [join(ROOT, 'src', 'registry', 'index.ts')] }
  })
  return files.flatMap((file) => {
    const source = program.getSourceFile(file)
    assert.ok(source, file)
    return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]
  }).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
}

function baseEnv (dir: string): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, PORT: '0', WORKSPACE_ROOT: join(dir, 'workspace') }
}

test('EXTRA_TOOLS_DIRS: none by default; a comma list or the file\'s extraToolsDirs, relative folders from the working folder', async (t) => {
  const cwd = await mkdtemp(join(tmpdir(), 'gw-extra-config-'))
  t.after(() => rm(cwd, { recursive: true, force: true }))
  assert.deepEqual((await loadConfig({ cwd, env: {} })).extraToolsDirs, [])
  const fromEnv = await loadConfig({ cwd, env: { EXTRA_TOOLS_DIRS: 'my-tools, /srv/more-tools' } })
  assert.deepEqual(fromEnv.extraToolsDirs, [join(cwd, 'my-tools'), '/srv/more-tools'])
  await writeFile(join(cwd, 'gateway.yaml'), 'extraToolsDirs: [./from-file]\n')
  assert.deepEqual((await loadConfig({ cwd, env: { GATEWAY_CONFIG: 'gateway.yaml' } })).extraToolsDirs, [join(cwd, 'from-file')])
})

test('in-process: EXTRA_TOOLS_DIRS adds an outside folder to the built-in tools; the tool is listed and runs', async (t) => {
  const dir = await myTools(t)
  const { app, log } = await buildTestApp(t, { EXTRA_TOOLS_DIRS: dir }, { builtins: true })
  const done = log.lines().find((line) => line.msg === 'tool discovery done')
  assert.ok((done?.tools as string[]).includes('greet'))
  assert.ok((done?.tools as string[]).includes('read_file'), 'the built-in tools are still there')
  assert.equal(done?.registeredNothing, 0)
  assert.ok((done?.dirs as string[]).includes(dir))

  const listed = (await app.inject('/tools?toolset=greetings')).json() as { tools: Array<{ name: string, available: boolean }> }
  assert.deepEqual(listed.tools.map((tool) => [tool.name, tool.available]), [['greet', true]])
  const res = await app.inject({ method: 'POST', url: '/dispatch/greet', payload: { name: 'Grace' }, headers: { 'x-tool-call-id': 'call_7' } })
  assert.equal(res.statusCode, 200, res.body)
  assert.deepEqual(JSON.parse(res.json().content), { greeting: 'Hello, Grace!', callId: 'call_7' })
})

test('npm run dev: the sources run, the outside tool imports the registry they run', async (t) => {
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  assert.equal(pkg.scripts.dev, 'node --watch src/server.ts', 'this test starts what `npm run dev` runs (without the restarts)')
  const dir = await myTools(t)
  const server = await startGateway(t, ['src/server.ts'], ROOT, { ...baseEnv(join(dir, '..')), EXTRA_TOOLS_DIRS: dir })
  await assertServesGreet(server)
  assert.equal(await server.stop(), 0)
})

test('npm start and the container: compiled files in another folder, `node dist/src/server.js`, the tool folder mounted elsewhere', async (t) => {
  const dockerfile = await readFile(join(ROOT, 'Dockerfile'), 'utf8')
  assert.match(dockerfile, /^WORKDIR \/app$/m)
  assert.match(dockerfile, /^CMD \["node", "dist\/src\/server\.js"\]$/m, 'this test starts what the image runs')
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  // With the image's malloc setting (docs/operations.md, "Running in a container"), unless the user's environment has its own.
  assert.match(dockerfile, /^ {4}MALLOC_ARENA_MAX=2$/m)
  assert.match(pkg.scripts.start, /^MALLOC_ARENA_MAX=\$\{MALLOC_ARENA_MAX:-2\} exec node dist\/src\/server\.js$/, '`npm start` runs the same')
  assert.equal(pkg.scripts.prestart, 'npm run build', 'after building what changed')
  const tools = await myTools(t)
  const app = await compiledApp(t, 'gw-image-app-')

  const server = await startGateway(t, ['dist/src/server.js'], app, {
    ...baseEnv(app), NODE_ENV: 'production', HOST: '0.0.0.0', GATEWAY_ALLOW_OPEN: 'true', EXTRA_TOOLS_DIRS: tools
  })
  await assertServesGreet(server)
  assert.equal(await server.stop(), 0)
})

test('typed outside tools: TypeBox and literal schemas through \'tool-gateway/registry\', served as plain JSON Schema, validated before the handler', async (t) => {
  const dir = await typedTools(t)
  const { app } = await buildTestApp(t, { EXTRA_TOOLS_DIRS: dir })
  const definitions = (await app.inject('/definitions?toolsets=typed')).json() as Array<{ function: { name: string, parameters: unknown } }>
  assert.deepEqual(definitions.map((tool) => [tool.function.name, tool.function.parameters]), [
    ['count', {
      type: 'object',
      properties: { words: { type: 'array', items: { type: 'string' }, minItems: 1 }, unit: { type: 'string', enum: ['words', 'letters'] } },
      required: ['words'],
      additionalProperties: false
    }],
    ['shout', {
      type: 'object',
      required: ['text'],
      properties: {
        text: { type: 'string', minLength: 1, description: 'What to shout.' },
        times: { type: 'integer', minimum: 1, maximum: 3, description: 'How many times; default 1.' }
      },
      additionalProperties: false
    }]
  ])
  const call = async (name: string, payload: object): Promise<{ status: number, body: Record<string, unknown> }> => {
    const res = await app.inject({ method: 'POST', url: `/dispatch/${name}`, payload })
    return { status: res.statusCode, body: res.json() }
  }
  const shouted = await call('shout', { text: 'hey', times: '2' })
  assert.equal(shouted.status, 200, JSON.stringify(shouted.body))
  assert.deepEqual(JSON.parse(shouted.body.content as string), { shouted: 'HEY HEY' }, 'a numeric string coerced to the integer the handler is typed with')
  const counted = await call('count', { words: ['to', 'be'], unit: 'letters' })
  assert.deepEqual(JSON.parse(counted.body.content as string), { count: 4, unit: 'letters' })
  // What the types promise holds because the gateway refuses what the schema does not allow.
  for (const [name, args] of [['shout', { text: 'hey', times: 5 }], ['shout', {}], ['count', { words: [] }], ['count', { words: ['a'], unit: 'lines' }]] as const) {
    const refused = await call(name, args)
    assert.equal(refused.status, 400, `${name} ${JSON.stringify(args)}: ${JSON.stringify(refused.body)}`)
  }
})

test('typed outside tools type-check from their folder, and a handler misusing its arguments does not', async (t) => {
  const dir = await typedTools(t)
  assert.deepEqual(typeCheck([join(dir, 'shout.ts'), join(dir, 'count.ts')]), [])
  await writeFile(join(dir, 'mistyped.ts'), MISTYPED)
  const errors = typeCheck([join(dir, 'mistyped.ts')])
  assert.equal(errors.length, 2, errors.join('\n'))
  assert.match(errors[0], /^Type 'number \| undefined' is not assignable to type 'number'/, 'an optional argument may be absent')
  assert.match(errors[1], /^Property 'loud' does not exist on type/, 'only declared parameters')
})
