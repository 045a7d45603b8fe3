// QuickJS's WebAssembly module with a bounded memory. The runtime's own memory limit did not stop an
// allocation loop here (the process grew past 1.5 GB); a WebAssembly.Memory with a maximum does: the
// VM's malloc fails and the script gets an out-of-memory error.
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import * as releaseSync from '@jitl/quickjs-wasmfile-release-sync'
import { newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core'
import type { QuickJSSyncVariant, QuickJSWASMModule } from 'quickjs-emscripten-core'

// The libraries this project type-checks with (ES2025 and Node's) declare no WebAssembly global:
// the little used of it here is typed locally.
export interface CompiledWasm { readonly compiledWasm: unique symbol }
interface WasmApi {
  compile: (bytes: Uint8Array) => Promise<CompiledWasm>
  Memory: new (descriptor: { initial: number, maximum: number }) => { buffer: ArrayBuffer }
}
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly
// The package's types are CommonJS (default import = the whole module); at run time, as ESM, the
// namespace's default is the variant either way.
const RELEASE_SYNC = releaseSync.default as unknown as QuickJSSyncVariant

const PAGE_BYTES = 65_536
/** The memory the build starts with (its INITIAL_MEMORY): static data, the C stack, the first heap. */
export const INITIAL_MEMORY_BYTES = 16 * 2 ** 20
/** Room above the VM's heap limit for the C stack, static data and the allocator's own overhead. */
export const MEMORY_HEADROOM_BYTES = 16 * 2 ** 20

/**
 * The most stack a script gets. The build's C stack (in the WebAssembly memory) is about 5 MiB, and
 * a QuickJS limit above it makes every check fail; the same frames take about 2.6 times as much of
 * the thread's native stack, which the workers are given (WORKER_STACK_MB).
 */
export const MAX_STACK_BYTES = 4 * 2 ** 20
export const WORKER_STACK_MB = 16

/** The stack limit QuickJS is given: the one asked for, within MAX_STACK_BYTES (0 means the most). */
export function effectiveStackBytes (stackBytes: number): number {
  return stackBytes > 0 ? Math.min(stackBytes, MAX_STACK_BYTES) : MAX_STACK_BYTES
}

/** Compiled once per thread; instantiating it again costs about a millisecond. */
export async function compileQuickJS (): Promise<CompiledWasm> {
  const path = createRequire(import.meta.url).resolve('@jitl/quickjs-wasmfile-release-sync/wasm')
  return await wasmApi.compile(await readFile(path))
}

/** The WebAssembly memory a VM with this heap limit may grow to. */
export function memoryCeiling (memoryBytes: number): number {
  return Math.ceil((memoryBytes + MEMORY_HEADROOM_BYTES) / PAGE_BYTES) * PAGE_BYTES
}

/** A fresh QuickJS module whose memory can never grow past memoryCeiling(memoryBytes). */
export async function newBoundedModule (wasmModule: CompiledWasm, memoryBytes: number): Promise<QuickJSWASMModule> {
  const maximum = memoryCeiling(memoryBytes) / PAGE_BYTES
  const wasmMemory = new wasmApi.Memory({ initial: INITIAL_MEMORY_BYTES / PAGE_BYTES, maximum })
  return await newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmModule: wasmModule as never, wasmMemory: wasmMemory as never }))
}
