// The servers of the code-mode benchmark, in a process of their own so that autocannon's load does
// not share their event loop: the real gateway (buildApp, built-in tools, CODE_MODE=true, on
// WORKSPACE_ROOT) and, in the same process, the floor: a bare Fastify server whose routes run the
// same script through the same sandbox (ScriptRunner, 2 workers as the gateway's default), with
// nothing around it. Prints `{"gateway": url, "floor": url}` once both listen; SIGTERM closes both.
import Fastify from 'fastify'
import { buildApp } from '../../src/app/app.ts'
import { ScriptRunner, type InnerCallAnswer, type ScriptLimits } from '../../src/code/sandbox/index.ts'
import { loadConfig } from '../../src/config/load.ts'
import { readFileResult } from '../floor-files.ts'

const workspace = process.env.WORKSPACE_ROOT
if (workspace === undefined) throw new Error('WORKSPACE_ROOT must name the corpus')

const config = await loadConfig({ env: process.env, cwd: process.cwd() })
const gateway = await buildApp(config, { env: process.env })
const gatewayUrl = await gateway.listen({ host: '127.0.0.1', port: 0 })

const code = config.code
const limits: ScriptLimits = {
  memoryBytes: code.memoryMb * 1024 * 1024,
  stackBytes: code.stackKb * 1024,
  maxCalls: code.maxCalls,
  maxConcurrentCalls: code.maxConcurrentCalls,
  maxOutputBytes: code.maxOutputBytes
}
const runner = new ScriptRunner({ workers: code.workers })
await runner.start()

/** The floor's inner read_file: the file read and numbered as the tool would, nothing checked. */
async function readInner (name: string, args: unknown): Promise<InnerCallAnswer> {
  if (name !== 'read_file') return { ok: false, message: `no tool ${name}` }
  const text = await readFileResult(workspace as string, (args as { path: string }).path)
  return { ok: true, value: JSON.parse(text) }
}

const floor = Fastify({ logger: false })
floor.post('/script', {
  schema: {
    body: { type: 'object', properties: { code: { type: 'string', minLength: 1 }, tools: { type: 'boolean' } }, required: ['code'], additionalProperties: false }
  }
}, async (request) => {
  const body = request.body as { code: string, tools?: boolean }
  const outcome = await runner.run({
    code: body.code,
    toolNames: body.tools === true ? ['read_file'] : [],
    timeoutMs: 30_000,
    limits,
    callTool: readInner
  })
  if (!outcome.ok) throw new Error(`the floor's script failed: ${outcome.message}`)
  // The same envelope the gateway answers, its content the same JSON text.
  return { tool: 'execute_code', ok: true, status: 'ok', content: JSON.stringify({ result: outcome.result, logs: outcome.logs, calls: outcome.calls }) }
})
const floorUrl = await floor.listen({ host: '127.0.0.1', port: 0 })

process.stdout.write(JSON.stringify({ gateway: gatewayUrl, floor: floorUrl }) + '\n')
process.once('SIGTERM', () => {
  Promise.all([gateway.close(), floor.close(), runner.close()]).then(() => process.exit(0), (err: unknown) => {
    process.stderr.write(`code-mode bench server: close failed: ${String(err)}\n`)
    process.exit(1)
  })
})
