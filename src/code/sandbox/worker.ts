// A worker of the pool: runs one execution at a time, each in a fresh QuickJS runtime. The module (the
// WebAssembly instance and its memory) serves run after run, and is replaced after an out-of-memory,
// a failure on the host side of the VM, a failed disposal, or a run that grew its memory past twice
// the initial size (memory a WebAssembly instance never gives back).
import { readlinkSync } from 'node:fs'
import { setPriority } from 'node:os'
import { parentPort } from 'node:worker_threads'
import type { QuickJSWASMModule } from 'quickjs-emscripten-core'
import { ScriptVm } from './script-vm.ts'
import type { RunJob } from './script-vm.ts'
import type { FromWorker, ToWorker } from './types.ts'
import { compileQuickJS, INITIAL_MEMORY_BYTES, memoryCeiling, newBoundedModule } from './wasm-module.ts'

const port = parentPort
if (port === null) throw new Error('src/code/sandbox/worker is the entry of a worker thread, not a module to import')

const wasm = await compileQuickJS()

/** Scripts are background work beside the main thread's event loop: on a busy machine it runs first. */
const NICENESS = 10

// Linux: /proc/thread-self names this thread's id, and setpriority on a thread id applies to that thread
// alone (and to threads it starts later: hence after compiling, whose file read may have started
// libuv's thread pool, which the main thread shares). Elsewhere the worker keeps the process's priority.
try {
  const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop())
  if (Number.isInteger(threadId) && threadId !== process.pid) setPriority(threadId, NICENESS)
} catch {}

let module: { instance: QuickJSWASMModule, ceiling: number } | undefined
let current: ScriptVm | undefined

function post (message: FromWorker): void {
  port!.postMessage(message)
}

async function moduleFor (memoryBytes: number): Promise<QuickJSWASMModule> {
  const ceiling = memoryCeiling(memoryBytes)
  if (module === undefined || module.ceiling !== ceiling) {
    module = { instance: await newBoundedModule(wasm, memoryBytes), ceiling }
  }
  return module.instance
}

function ended (tainted: boolean): void {
  current = undefined
  if (module !== undefined && (tainted || module.instance.getWasmMemory().buffer.byteLength > 2 * INITIAL_MEMORY_BYTES)) module = undefined
}

async function run (job: RunJob): Promise<void> {
  const vm = new ScriptVm(job, post, ended)
  current = vm
  let instance: QuickJSWASMModule
  try {
    instance = await moduleFor(job.limits.memoryBytes)
  } catch (error) {
    post({ type: 'done', runId: job.runId, outcome: { ok: false, kind: 'internal', message: `the sandbox could not start QuickJS: ${String(error)}`, logs: [] } })
    current = undefined
    return
  }
  vm.start(instance)
}

port.on('message', (message: ToWorker) => {
  try {
    handle(message)
  } catch (error) {
    // The VM code guards its own failures; this is a bug of the sandbox, answered rather than crashing.
    if (current === undefined || current.runId !== (message as { runId?: number }).runId) return
    const runId = current.runId
    current = undefined
    module = undefined
    post({ type: 'done', runId, outcome: { ok: false, kind: 'internal', message: `the sandbox failed: ${String(error)}`, logs: [] } })
  }
})

function handle (message: ToWorker): void {
  if (message.type === 'run') {
    run(message).catch(() => {})
  } else if (current?.runId !== message.runId) {
    // An answer or a stop for a run that has already ended.
  } else if (message.type === 'answer') {
    current.answer(message.callId, message.ok, message.ok ? message.json : message.message)
  } else if (message.type === 'stop') {
    current.stop()
  }
}
post({ type: 'ready' })
