// The parts of the patch tool whose cost grows with the input, run in a piscina worker so they
// never block the gateway's thread and die with the call's deadline: finding the lines closest to
// a text that was not found (many windows of a large file compared), and applying a unified diff
// (a hunk that does not fit is tried at every line of the file). Pure computation: data in, data out.
import { applyPatch, type StructuredPatch } from 'diff'
import { findClosestLines, type ClosestLines } from './closest.ts'

export type EditTask =
  | { kind: 'closest', text: string, needle: string }
  | { kind: 'unified', before: string, section: StructuredPatch }

export type UnifiedResult =
  | { after: string }
  | { thrown: string }
  /** 0-based index of the first hunk that does not apply, and where its text most likely is. */
  | { failedHunk: number, closest: ClosestLines | undefined }

/** Applies the first `count` hunks; false when one does not fit. */
function appliesUpTo (before: string, section: StructuredPatch, count: number): boolean {
  return applyPatch(before, { ...section, hunks: section.hunks.slice(0, count) }) !== false
}

/** The first failing hunk by bisection: if a prefix of hunks fails, every longer one does too. */
function firstFailingHunk (before: string, section: StructuredPatch): number {
  let low = 1
  let high = section.hunks.length
  while (low < high) {
    const middle = Math.floor((low + high) / 2)
    if (appliesUpTo(before, section, middle)) low = middle + 1
    else high = middle
  }
  return low - 1
}

function applyUnified (before: string, section: StructuredPatch): UnifiedResult {
  let after: string | false
  try {
    after = applyPatch(before, section)
  } catch (error) {
    return { thrown: (error as Error).message }
  }
  if (after !== false) return { after }
  const failedHunk = firstFailingHunk(before, section)
  const expected = section.hunks[failedHunk].lines
    .filter((line) => line.startsWith(' ') || line.startsWith('-'))
    .map((line) => line.slice(1))
    .join('\n')
  return { failedHunk, closest: expected.trim() === '' ? undefined : findClosestLines(before, expected) }
}

export default function runEditTask (task: EditTask): ClosestLines | undefined | UnifiedResult {
  return task.kind === 'closest' ? findClosestLines(task.text, task.needle) : applyUnified(task.before, task.section)
}
