// The worker pool of the patch tool's heavy parts (see edit-worker.ts). An aborted task terminates
// its worker (piscina), so the call's deadline and cancellation stop the work itself, not only the
// wait for it. Idle workers are unref'd and end after a while: the pool never holds the process.
import { extname } from 'node:path'
import type { StructuredPatch } from 'diff'
import type { Piscina } from 'piscina'
import type { ClosestLines } from './closest.ts'
import type { EditTask, UnifiedResult } from './edit-worker.ts'

/** How long a failed edit may spend looking for the closest lines before answering without them. */
export const CLOSEST_BUDGET_MS = 2000

let pool: Piscina<EditTask, unknown> | undefined

async function editPool (): Promise<Piscina<EditTask, unknown>> {
  // Loaded with the first task: a start without edits does without it (test/lazy-loading.test.ts).
  const { Piscina } = await import('piscina')
  // The worker module has this module's extension: .ts from the sources, .js in the build.
  const filename = new URL(`./edit-worker${extname(new URL(import.meta.url).pathname)}`, import.meta.url).href
  pool ??= new Piscina({ filename, minThreads: 0, maxThreads: 2, idleTimeout: 30_000, resourceLimits: { maxOldGenerationSizeMb: 512 } })
  return pool
}

/** The lines of `text` closest to `needle`; undefined when none is similar or the search outlasts its budget. */
export async function closestInWorker (text: string, needle: string, signal: AbortSignal): Promise<ClosestLines | undefined> {
  const budget = AbortSignal.any([signal, AbortSignal.timeout(CLOSEST_BUDGET_MS)])
  try {
    return await (await editPool()).run({ kind: 'closest', text, needle }, { signal: budget }) as ClosestLines | undefined
  } catch (error) {
    if (signal.aborted) throw signal.reason
    if (budget.aborted) return undefined
    throw error
  }
}

/** `section` applied to `before`, or why not; stops when `signal` fires (its reason is thrown). */
export async function unifiedInWorker (before: string, section: StructuredPatch, signal: AbortSignal): Promise<UnifiedResult> {
  try {
    return await (await editPool()).run({ kind: 'unified', before, section }, { signal }) as UnifiedResult
  } catch (error) {
    if (signal.aborted) throw signal.reason
    throw error
  }
}
