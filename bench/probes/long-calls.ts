// Probe of issue 29: calls that outlive their request, on the compiled gateway (npm run build first)
// with two tools of a user's own folder (EXTRA_TOOLS_DIRS): `nap` sleeps `ms` (or until its signal
// fires) and `confirm` asks its caller a question. (a) what a caller pays: 300 calls of each path
// one after another, time to the final answer: a plain call, `Prefer: respond-async` then
// `GET /calls/:id?wait=5`, and a question answered at once (the first turn, then X-Request-State).
// (b) one caller floods: 2 000 `Prefer: respond-async` naps of 60 s, 8 at a time; then 2 000 plain
// calls of `confirm` left unanswered, 8 at a time: how many the gateway took, what the rest were
// told, its memory and /healthz meanwhile.
// Run: npm run build && node bench/probes/long-calls.ts
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { probe } from './harness.ts'

const TOOLS = `import { registry, toolResult } from 'tool-gateway/registry'
registry.register({ name: 'nap', toolset: 'probe', schema: { description: 'Sleeps ms.', parameters: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] } },
  timeoutMs: 600000,
  handler: async (args, ctx) => await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(toolResult({ slept: args.ms })), args.ms)
    ctx.signal.addEventListener('abort', () => { clearTimeout(timer); resolve(toolResult({ woken: true })) }, { once: true })
  }) })
registry.register({ name: 'confirm', toolset: 'probe', schema: { description: 'Asks to confirm.', parameters: { type: 'object', properties: {} } },
  handler: async (_args, ctx) => {
    const answers = await ctx.ask({ ok: { method: 'elicitation/create', params: { message: 'Go?', requestedSchema: { type: 'object', properties: { go: { type: 'boolean' } } } } } })
    return toolResult(answers.ok)
  } })
`

const JSON_HEADERS = { 'content-type': 'application/json' }

async function post (url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number, body: Record<string, unknown> }> {
  const response = await fetch(url, { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) })
  return { status: response.status, body: await response.json() as Record<string, unknown> }
}

function percentile (values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] * 100) / 100
}

async function timed (times: number, run: () => Promise<void>): Promise<string> {
  const ms: number[] = []
  for (let i = 0; i < times; i++) {
    const began = performance.now()
    await run()
    ms.push(performance.now() - began)
  }
  return `p50 ${percentile(ms, 0.5)} ms, p99 ${percentile(ms, 0.99)} ms`
}

/** Runs `count` calls `concurrency` at a time; tallies their answers by `key(answer)`. */
async function flood (count: number, concurrency: number, call: () => Promise<string>): Promise<Record<string, number>> {
  const tally: Record<string, number> = {}
  let next = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) {
      next++
      const key = await call().catch((err: unknown) => `failed: ${String(err)}`.slice(0, 120))
      tally[key] = (tally[key] ?? 0) + 1
    }
  }))
  return tally
}

const dir = await mkdtemp(join(tmpdir(), 'probe-long-calls-'))
const tools = join(dir, 'tools')
await mkdir(tools)
await writeFile(join(tools, 'package.json'), '{ "type": "module" }\n')
await writeFile(join(tools, 'probe-tools.js'), TOOLS)
const env = { EXTRA_TOOLS_DIRS: tools, LOG_LEVEL: 'warn' }

try {
  const latency: Record<string, string> = {}
  await probe('long-calls-latency', env, async (gateway) => {
    const url = (path: string): string => `${gateway.url}${path}`
    latency.plain = await timed(300, async () => { await post(url('/dispatch/nap'), { ms: 1 }) })
    latency.async = await timed(300, async () => {
      const started = await post(url('/dispatch/nap'), { ms: 1 }, { prefer: 'respond-async' })
      const followed = await fetch(url(`/calls/${String(started.body.callId)}?wait=5`))
      if (followed.status !== 200) throw new Error(`GET /calls answered ${followed.status}`)
      await followed.arrayBuffer()
    })
    latency.question = await timed(300, async () => {
      const asked = await post(url('/dispatch/confirm'), {})
      const done = await post(url('/dispatch/confirm'), { inputResponses: { ok: { action: 'accept', content: { go: true } } } }, { 'x-request-state': String(asked.body.requestState) })
      if (done.body.status !== 'ok') throw new Error(JSON.stringify(done.body))
    })
  })
  console.log('latency (one caller, one call at a time, to the final answer):', latency)

  const asyncTally: Record<string, Record<string, number>> = {}
  const asyncFigures = await probe('long-calls-async-flood', env, async (gateway) => {
    asyncTally.answers = await flood(2_000, 8, async () => {
      const answer = await post(`${gateway.url}/dispatch/nap`, { ms: 60_000 }, { prefer: 'respond-async' })
      return `${answer.status} ${String((answer.body.error as { code?: string } | undefined)?.code ?? answer.body.status)}`
    })
  })
  console.log('2 000 Prefer: respond-async naps of 60 s, 8 at a time:', asyncTally.answers, asyncFigures)

  const questionTally: Record<string, Record<string, number>> = {}
  const questionFigures = await probe('long-calls-question-flood', env, async (gateway) => {
    questionTally.answers = await flood(2_000, 8, async () => {
      const answer = await post(`${gateway.url}/dispatch/confirm`, {})
      const error = answer.body.error as { code?: string } | undefined
      return `${answer.status} ${String(answer.body.status)}${error?.code === undefined ? '' : ` ${error.code}`}`
    })
  })
  console.log('2 000 unanswered questions, 8 at a time:', questionTally.answers, questionFigures)
} finally {
  await rm(dir, { recursive: true, force: true })
}
