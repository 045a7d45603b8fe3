// A handler's calls of other tools (ctx.callTool, what execute_code's scripts use), through a real
// app: each is a call of its own as the same caller, with the caller's scope, hooks, approvals, a
// deadline within the outer one's, a child span, the metrics and an audit line `via: inner`.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { InnerCallResult, ToolContext } from '../../src/registry/types.ts'
import { toolResult } from '../../src/registry/tool-result.ts'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'
import { memoryTracer } from '../helpers/tracing.ts'
import { bearer, configFolder, keysYaml } from '../helpers/keys.ts'

type TestContext = Parameters<typeof buildTestApp>[0]

const FULL = 'full-key-inner-0123456789'
const LIMITED = 'limited-key-inner-01234567'

interface Planned { name: string, args: unknown }

/**
 * A gateway with keys `full` and `limited` (toolsets caller and open), the tool `relay` (toolset
 * caller) that calls what its arguments list and answers what each inner call answered, and tools
 * for it to call.
 */
async function innerGateway (t: TestContext, env: Record<string, string> = {}) {
  const { dir, file: config } = await configFolder(t, keysYaml([
    { name: 'full', key: FULL },
    { name: 'limited', key: LIMITED, toolsets: ['caller', 'open'] }
  ], ['trust:', '  approval: [guarded]']))
  const audit = join(dir, 'audit.log')
  const memory = memoryTracer()
  const built = await buildTestApp(t, { GATEWAY_CONFIG: config, AUDIT_FILE: audit, AUTH_FAILURE_MAX: '1000', ...env }, { tracer: memory.tracer })
  const { registry } = built.app.gateway
  const seen: Array<{ tool: string, ctx: ToolContext }> = []
  registry.register(fixtureTool('relay', {
    toolset: 'caller',
    schema: { parameters: { type: 'object', properties: { calls: { type: 'array' } }, required: ['calls'] } },
    handler: async (args, ctx) => {
      seen.push({ tool: 'relay', ctx })
      const answers: InnerCallResult[] = []
      for (const call of args.calls as Planned[]) {
        if (ctx.callTool === undefined) return toolResult({ error: 'no callTool' })
        answers.push(await ctx.callTool(call.name, call.args))
      }
      return toolResult(answers)
    }
  }))
  registry.register(fixtureTool('echo', {
    toolset: 'open',
    schema: { parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } },
    handler: async (args, ctx) => { seen.push({ tool: 'echo', ctx }); return toolResult({ n: args.n, principal: ctx.principal, nested: ctx.callTool !== undefined }) }
  }))
  registry.register(fixtureTool('secret', { toolset: 'hidden', handler: async () => 'the secret' }))
  registry.register(fixtureTool('write_file', { toolset: 'open', handler: async () => 'written' }))
  registry.register(fixtureTool('guarded', { toolset: 'open', handler: async () => 'ran' }))
  registry.register(fixtureTool('nap', {
    toolset: 'open',
    timeoutMs: 60_000,
    handler: async (_args, ctx) => { await sleep(30_000, undefined, { signal: ctx.signal }); return 'woke' }
  }))
  built.app.gateway.hooks.add('pre_tool_call', (event) => event.tool === 'write_file' ? { action: 'block', message: 'policy: no writes' } : undefined, 'policy')
  const lines = async (): Promise<Array<Record<string, unknown>>> => {
    await built.app.audit.flush()
    return (await readFile(audit, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
  }
  return { ...built, seen, lines, memory }
}

async function relay (app: Awaited<ReturnType<typeof innerGateway>>['app'], key: string, calls: Planned[], headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'POST', url: '/dispatch/relay', headers: { ...bearer(key), ...headers }, payload: { calls } })
  const body = res.json<{ status: string, content: string, callId: string }>()
  return { res, body, answers: body.status === 'ok' ? JSON.parse(body.content) as InnerCallResult[] : [] }
}

test('an inner call runs as the same caller, coerced and validated, and cannot call on itself', async (t) => {
  const { app, seen } = await innerGateway(t)
  const { body, answers } = await relay(app, FULL, [{ name: 'echo', args: { n: '7' } }, { name: 'echo', args: { n: 'seven' } }])
  assert.equal(body.status, 'ok')
  assert.equal(answers[0].status, 'ok')
  // Coerced from "7", run as the caller's key, and with no ctx.callTool of its own.
  assert.deepEqual(JSON.parse(answers[0].content), { n: 7, principal: 'full', nested: false })
  assert.equal(answers[1].status, 'invalid')
  assert.match(answers[1].content, /n/)
  assert.equal(seen.filter((s) => s.tool === 'echo').length, 1)
})

test('a tool outside the caller\'s scope is not found from inside a call either', async (t) => {
  const { app } = await innerGateway(t)
  const limited = await relay(app, LIMITED, [{ name: 'secret', args: {} }, { name: 'echo', args: { n: 1 } }])
  assert.equal(limited.answers[0].status, 'not_found')
  assert.doesNotMatch(limited.answers[0].content, /the secret/)
  assert.equal(limited.answers[1].status, 'ok')
  const full = await relay(app, FULL, [{ name: 'secret', args: {} }])
  assert.equal(full.answers[0].status, 'ok')
  assert.equal(full.answers[0].content, 'the secret')
})

test('hooks and approvals hold for inner calls: a blocked tool stays blocked, an approval is refused naming why', async (t) => {
  const { app } = await innerGateway(t)
  const { answers } = await relay(app, FULL, [{ name: 'write_file', args: {} }, { name: 'guarded', args: {} }])
  assert.equal(answers[0].status, 'blocked')
  assert.match(answers[0].content, /policy: no writes/)
  assert.equal(answers[1].status, 'blocked')
  assert.match(answers[1].content, /approves the call.*a call made by relay cannot wait for one: call guarded directly/)
  // Nothing waits for a person: no approval was filed.
  const pending = await app.inject({ method: 'GET', url: '/admin/approvals', headers: bearer(FULL) })
  assert.deepEqual(pending.json<{ approvals: unknown[] }>().approvals, [])
})

test('an inner call\'s deadline is within what the outer call has left', async (t) => {
  const { app } = await innerGateway(t)
  const started = performance.now()
  const { body, answers } = await relay(app, FULL, [{ name: 'nap', args: {} }], { 'x-tool-timeout-ms': '400' })
  const elapsed = performance.now() - started
  // The nap (60 s of its own) ends when the outer call's 400 ms do: the inner deadline fires first
  // (the outer call then answers what it got) or the outer one does.
  if (body.status === 'ok') assert.equal(answers[0].status, 'timeout')
  else assert.equal(body.status, 'timeout')
  assert.ok(elapsed < 5_000, `took ${elapsed} ms`)
})

test('each inner call has its audit line (via inner, naming the outer call), its metrics and a child span', async (t) => {
  const { app, lines, memory } = await innerGateway(t)
  const { body } = await relay(app, FULL, [{ name: 'echo', args: { n: 1 } }, { name: 'echo', args: { n: 2 } }])
  const audited = (await lines()).filter((line) => line.type === 'call')
  const inner = audited.filter((line) => line.via === 'inner')
  assert.equal(inner.length, 2)
  for (const line of inner) {
    assert.equal(line.tool, 'echo')
    assert.equal(line.principal, 'full')
    assert.equal((line.detail as Record<string, unknown>).outerCallId, body.callId)
    assert.equal((line.detail as Record<string, unknown>).outerTool, 'relay')
  }
  assert.equal(audited.filter((line) => line.via === 'rest').length, 1)
  const metrics = await app.inject({ method: 'GET', url: '/metrics', headers: bearer(FULL) })
  assert.match(metrics.body, /gateway_tool_calls_total\{[^}]*tool="echo"[^}]*\} 2/)
  const outer = memory.only('execute_tool relay')
  const echoes = memory.spans().filter((span) => span.name === 'execute_tool echo')
  assert.equal(echoes.length, 2)
  for (const span of echoes) {
    assert.equal(span.spanContext().traceId, outer.spanContext().traceId)
    assert.equal(span.parentSpanContext?.spanId, outer.spanContext().spanId)
  }
})

test('an inner call times out at what its outer call has left, not at its own longer deadline', async (t) => {
  const { app } = await innerGateway(t)
  const answer = await app.gateway.dispatcher.dispatch({ name: 'nap', args: {}, outer: { tool: 'relay', callId: 'call_outer', withinMs: 150 } })
  assert.equal(answer.outcome.status, 'timeout')
  assert.match(answer.outcome.content, /timed out after 150 ms/)
})
