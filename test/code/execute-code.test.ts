// execute_code through a real app with the built-in file tools on a temp workspace: a script reads
// files and answers one line; the caller's scope, hooks, approvals, deadline and audit hold on every
// call it makes; its description and GET /definitions name the tools in scope as TypeScript.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'
import { bearer, configFolder, keysYaml } from '../helpers/keys.ts'

type TestContext = Parameters<typeof buildTestApp>[0]

const FULL = 'full-key-code-0123456789ab'
const LIMITED = 'limited-key-code-012345678'

/** A gateway with code mode, the built-in tools, keys `full` and `limited` (toolsets code and file), 20 files. */
async function codeGateway (t: TestContext, env: Record<string, string> = {}) {
  const { dir, file: config } = await configFolder(t, keysYaml([
    { name: 'full', key: FULL },
    { name: 'limited', key: LIMITED, toolsets: ['code', 'file'] }
  ], ['trust:', '  approval: [guarded]']))
  const audit = join(dir, 'audit.log')
  const built = await buildTestApp(t, { GATEWAY_CONFIG: config, CODE_MODE: 'true', AUDIT_FILE: audit, AUTH_FAILURE_MAX: '1000', ...env }, { builtins: true })
  const workspace = built.config.workspaceRoot
  await mkdir(join(workspace, 'notes'), { recursive: true })
  for (let i = 1; i <= 20; i++) {
    const lines = Array.from({ length: i }, (_, n) => i % 3 === 0 && n === 0 ? 'the needle is here' : `line ${n + 1} of file ${i}`)
    await writeFile(join(workspace, 'notes', `n${i}.txt`), lines.join('\n') + '\n')
  }
  built.app.gateway.registry.register(fixtureTool('guarded', { toolset: 'testing', handler: async () => 'ran' }))
  built.app.gateway.hooks.add('pre_tool_call', (event) => event.tool === 'write_file' ? { action: 'block', message: 'policy: no writes' } : undefined, 'policy')
  const lines = async (): Promise<Array<Record<string, unknown>>> => {
    await built.app.audit.flush()
    return (await readFile(audit, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
  }
  return { ...built, lines }
}

interface Answer { status: string, content: string, callId: string, body: Record<string, unknown> }

async function run (app: FastifyInstance, code: string, key = FULL, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await app.inject({ method: 'POST', url: '/dispatch/execute_code', headers: { ...bearer(key), ...headers }, payload: { code } })
  const body = res.json<{ status: string, content: string, callId: string }>()
  return { ...body, body: JSON.parse(body.content) as Record<string, unknown> }
}

const COUNT_SCRIPT = `
const kept = []
for (let i = 1; i <= 20; i++) {
  const file = await tools.read_file({ path: 'notes/n' + i + '.txt' })
  if (file.content.includes('needle')) kept.push({ path: file.path, lines: file.total_lines })
}
console.log('kept', kept.length)
return { files: kept.length, lines: kept.reduce((sum, f) => sum + f.lines, 0) }
`

test('a script reads twenty files through read_file and answers one line', async (t) => {
  const { app, lines } = await codeGateway(t)
  const answer = await run(app, COUNT_SCRIPT)
  assert.equal(answer.status, 'ok', answer.content)
  // Files 3, 6, ..., 18 mention the word; file i has i lines.
  assert.deepEqual(answer.body, { result: { files: 6, lines: 3 + 6 + 9 + 12 + 15 + 18 }, logs: ['kept 6'], calls: 20 })
  const inner = (await lines()).filter((line) => line.type === 'call' && line.via === 'inner')
  assert.equal(inner.length, 20)
  assert.ok(inner.every((line) => line.tool === 'read_file' && (line.detail as Record<string, unknown>).outerTool === 'execute_code'))
})

test('the description and GET /definitions?format=typescript declare the tools in the caller\'s scope', async (t) => {
  const { app } = await codeGateway(t)
  const full = await app.inject({ method: 'GET', url: '/definitions', headers: bearer(FULL) })
  const description = (full.json<Array<{ function: { name: string, description: string } }>>()).find((tool) => tool.function.name === 'execute_code')?.function.description ?? ''
  assert.match(description, /declare const tools/)
  assert.match(description, /read_file\(args: \{/)
  assert.match(description, /web_extract\(args/)
  assert.doesNotMatch(description, /execute_code\(args/)
  const limited = await app.inject({ method: 'GET', url: '/definitions', headers: bearer(LIMITED) })
  const limitedDescription = (limited.json<Array<{ function: { name: string, description: string } }>>()).find((tool) => tool.function.name === 'execute_code')?.function.description ?? ''
  assert.match(limitedDescription, /read_file\(args/)
  assert.doesNotMatch(limitedDescription, /web_extract|guarded/)
  const typescript = await app.inject({ method: 'GET', url: '/definitions?format=typescript', headers: bearer(LIMITED) })
  assert.equal(typescript.statusCode, 200)
  assert.match(typescript.body, /read_file\(args/)
  assert.doesNotMatch(typescript.body, /web_extract\(/)
})

test('asked for execute_code alone (?toolsets=code), its description declares every tool the caller\'s scripts may call', async (t) => {
  const { app } = await codeGateway(t)
  const describe = async (key: string): Promise<{ names: string[], description: string }> => {
    const res = await app.inject({ method: 'GET', url: '/definitions?toolsets=code', headers: bearer(key) })
    const tools = res.json<Array<{ function: { name: string, description: string } }>>()
    return { names: tools.map((tool) => tool.function.name), description: tools[0]?.function.description ?? '' }
  }
  const limited = await describe(LIMITED)
  assert.deepEqual(limited.names, ['execute_code'])
  assert.match(limited.description, /read_file\(args/)
  assert.match(limited.description, /write_file\(args/)
  assert.doesNotMatch(limited.description, /web_extract|guarded|execute_code\(args/)
  const full = await describe(FULL)
  assert.match(full.description, /web_extract\(args/)
  assert.match(full.description, /guarded\(args/)
})

test('a tool outside the scope is undefined in the script and refused by name', async (t) => {
  const { app } = await codeGateway(t)
  const seen = await run(app, 'return [typeof tools.web_extract, typeof tools.read_file, Object.keys(tools).includes("web_extract"), typeof tools.execute_code]', LIMITED)
  // Nor does a script see execute_code: scripts do not nest.
  assert.deepEqual(seen.body.result, ['undefined', 'function', false, 'undefined'])
  const called = await run(app, 'return await tools.web_extract({ urls: ["http://127.0.0.1/"] })', LIMITED)
  assert.equal(called.status, 'error')
  assert.match(String(called.body.error), /no tool web_extract; tools in scope: .*read_file/)
  assert.doesNotMatch(String(called.body.error), /guarded/)
})

test('hooks and approvals hold inside a script: the calls fail with the tool\'s error text', async (t) => {
  const { app } = await codeGateway(t)
  const answer = await run(app, `
    const errors = []
    for (const call of [() => tools.write_file({ path: 'x.txt', content: 'x' }), () => tools.guarded({})]) {
      try { await call() } catch (error) { errors.push(error instanceof Error ? error.message : 'not an Error') }
    }
    return errors`)
  assert.equal(answer.status, 'ok', answer.content)
  const [blocked, guarded] = answer.body.result as string[]
  assert.match(blocked, /policy: no writes/)
  assert.match(guarded, /approves the call.*a call made by execute_code cannot wait for one/)
})

test('bad scripts get clear errors: the parser\'s line and column, a result that is not JSON, a throw', async (t) => {
  const { app } = await codeGateway(t)
  const syntax = await run(app, 'const a = 1\nconst b = (\nreturn a')
  assert.equal(syntax.status, 'error')
  assert.equal(syntax.body.kind, 'syntax')
  assert.match(String(syntax.body.error), /line 3/)
  const cyclic = await run(app, 'const a = {}; a.self = a; return a')
  assert.equal(cyclic.body.kind, 'not_json')
  assert.match(String(cyclic.body.error), /JSON/)
  const thrown = await run(app, 'console.log("before"); throw new RangeError("out of range")')
  assert.equal(thrown.body.kind, 'runtime')
  assert.match(String(thrown.body.error), /RangeError: out of range/)
  assert.deepEqual(thrown.body.logs, ['before'])
})

test('an endless loop ends at the call\'s deadline while the gateway answers', async (t) => {
  const { app } = await codeGateway(t)
  const started = performance.now()
  const answer = await run(app, 'for (;;) {}', FULL, { 'x-tool-timeout-ms': '500' })
  assert.equal(answer.status, 'timeout')
  assert.match(answer.content, /timed out after 500 ms/)
  assert.ok(performance.now() - started < 5_000)
  // The worker is free again: the next script runs.
  const next = await run(app, 'return 1 + 1')
  assert.equal(next.body.result, 2)
})

test('one caller may have code.maxScriptsPerCaller scripts at once; another caller is not held by them', async (t) => {
  const { app } = await codeGateway(t, { CODE_MAX_SCRIPTS_PER_CALLER: '2', CODE_WORKERS: '4' })
  const slow = 'const until = Date.now() + 600; while (Date.now() < until) {} return "done"'
  const answers = await Promise.all([run(app, slow), run(app, slow), run(app, slow), run(app, 'return "other"', LIMITED)])
  const refused = answers.filter((answer) => answer.status === 'error' && /code.maxScriptsPerCaller/.test(answer.content))
  assert.equal(refused.length, 1)
  assert.equal(answers.filter((answer) => answer.body.result === 'done').length, 2)
  assert.equal(answers[3].body.result, 'other')
})

test('a script that starts 10 000 calls gets code.maxCalls of them run, each audited, and the rest refused in the script', async (t) => {
  const { app, lines } = await codeGateway(t)
  const answer = await run(app, `
    const calls = []
    for (let i = 0; i < 10000; i++) calls.push(tools.read_file({ path: 'notes/n1.txt' }))
    const settled = await Promise.allSettled(calls)
    const refused = settled.filter((s) => s.status === 'rejected')
    return { ok: settled.length - refused.length, refused: refused.length, reason: refused[0] && refused[0].reason.message }`)
  assert.equal(answer.status, 'ok', answer.content)
  const result = answer.body.result as { ok: number, refused: number, reason: string }
  assert.equal(result.ok, 200)
  assert.equal(result.refused, 9800)
  assert.match(result.reason, /code\.maxCalls \(200\)/)
  assert.equal(answer.body.calls, 200)
  assert.equal((await lines()).filter((line) => line.via === 'inner').length, 200)
})
