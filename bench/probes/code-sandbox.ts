// Probe of code mode's sandbox engine (src/code/sandbox): what an execution costs end to end through
// ScriptRunner.run, one inner call's round trip, starting a worker, a fresh QuickJS module per
// execution against one module reused with a fresh runtime, and the process's peak RSS while a script
// allocates until it runs out of memory. In-process, no gateway. Run: node bench/probes/code-sandbox.ts
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { ScriptRunner } from '../../src/code/sandbox/index.ts'
import type { RunScriptOptions, ScriptLimits } from '../../src/code/sandbox/index.ts'
import { compileQuickJS, newBoundedModule } from '../../src/code/sandbox/wasm-module.ts'

const MB = 2 ** 20
const LIMITS: ScriptLimits = { memoryBytes: 64 * MB, stackBytes: 512 * 1024, maxCalls: 1_000, maxConcurrentCalls: 8, maxOutputBytes: 1 * MB }

function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return Math.round(sorted[Math.floor(sorted.length / 2)] * 100) / 100
}

function p99 (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))] * 100) / 100
}

async function timed (times: number, run: () => Promise<unknown>): Promise<number[]> {
  const ms: number[] = []
  for (let i = 0; i < times; i++) {
    const began = performance.now()
    await run()
    ms.push(performance.now() - began)
  }
  return ms
}

function options (code: string, limits: Partial<ScriptLimits> = {}): RunScriptOptions {
  return { code, toolNames: ['echo'], timeoutMs: 10_000, limits: { ...LIMITS, ...limits }, callTool: async (name, args) => ({ ok: true, value: args }) }
}

async function workerStart (): Promise<Record<string, number>> {
  const total: number[] = []
  const blocked: number[] = []
  for (let i = 0; i < 5; i++) {
    const runner = new ScriptRunner({ workers: 1 })
    const began = performance.now()
    const starting = runner.start()
    blocked.push(performance.now() - began)
    await starting
    total.push(performance.now() - began)
    await runner.close()
  }
  return { workerReadyMedianMs: median(total), mainThreadBlockedMedianMs: median(blocked) }
}

async function throughRunner (): Promise<Record<string, number>> {
  const runner = new ScriptRunner({ workers: 2 })
  await runner.start()
  await timed(20, async () => await runner.run(options('return 1')))
  const empty = await timed(200, async () => await runner.run(options('return 1')))
  const calls = 200
  const withCalls = await timed(20, async () => await runner.run(options(`for (let i = 0; i < ${calls}; i++) await tools.echo({ i }); return 1`)))
  const histogram = monitorEventLoopDelay({ resolution: 5 })
  histogram.enable()
  await Promise.all(Array.from({ length: 8 }, async () => await runner.run(options('const end = Date.now() + 300; while (Date.now() < end) {} return 1'))))
  histogram.disable()
  await runner.close()
  return {
    emptyScriptMedianMs: median(empty),
    emptyScriptP99Ms: p99(empty),
    innerCallRoundTripMs: Math.round((median(withCalls) - median(empty)) / calls * 1000) / 1000,
    eightBusyEventLoopMaxDelayMs: Math.round(histogram.max / 1e6 * 10) / 10
  }
}

async function moduleCost (): Promise<Record<string, number>> {
  const wasm = await compileQuickJS()
  const once = async (module: Awaited<ReturnType<typeof newBoundedModule>>): Promise<void> => {
    const runtime = module.newRuntime()
    const context = runtime.newContext()
    context.unwrapResult(context.evalCode('1 + 1')).dispose()
    context.dispose()
    runtime.dispose()
  }
  const reused = await newBoundedModule(wasm, LIMITS.memoryBytes)
  await timed(20, async () => await once(reused))
  const reusedMs = await timed(100, async () => await once(reused))
  const freshMs = await timed(100, async () => await once(await newBoundedModule(wasm, LIMITS.memoryBytes)))
  return { freshModuleMedianMs: median(freshMs), reusedModuleFreshRuntimeMedianMs: median(reusedMs) }
}

async function allocationLoop (memoryMb: number): Promise<Record<string, number | string>> {
  const runner = new ScriptRunner({ workers: 1 })
  await runner.start()
  const before = process.memoryUsage().rss
  let peak = before
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss) }, 5)
  const began = performance.now()
  const outcome = await runner.run(options("const a = []; for (;;) a.push('x'.repeat(1e6))", { memoryBytes: memoryMb * MB }))
  const took = performance.now() - began
  clearInterval(sampler)
  await runner.close()
  return { memoryMb, kind: outcome.ok ? 'ok' : outcome.kind, tookMs: Math.round(took), rssBeforeMb: Math.round(before / MB), rssPeakMb: Math.round(peak / MB) }
}

console.log(JSON.stringify({ probe: 'code-sandbox', ...await workerStart() }))
console.log(JSON.stringify({ probe: 'code-sandbox', ...await throughRunner() }))
console.log(JSON.stringify({ probe: 'code-sandbox', ...await moduleCost() }))
for (const memoryMb of [32, 64, 256]) console.log(JSON.stringify({ probe: 'code-sandbox', ...await allocationLoop(memoryMb) }))
