// What the `process` tool answers about background processes: one process as the model sees it,
// a poll of its output, and the error for an id the caller does not know.
import { toolError, toolResult } from '../../../src/registry/index.ts'
import type { BackgroundProcess } from './process-table.ts'

function iso (ms: number): string {
  return new Date(ms).toISOString()
}

export function describe (entry: BackgroundProcess): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: entry.id,
    command: entry.command.length > 200 ? `${entry.command.slice(0, 200)}…` : entry.command,
    workdir: entry.workdir,
    pid: entry.pid,
    status: entry.status,
    exit_code: entry.exitCode
  }
  if (entry.signal !== null) view.signal = entry.signal
  view.started_at = iso(entry.startedAt)
  view.duration_ms = (entry.endedAt ?? Date.now()) - entry.startedAt
  view.output_chars = entry.proc.output.totalChars
  return view
}

/** `known` are the caller's own ids: another key's are never named. */
export function unknownId (id: string, known: string[]): string {
  const list = known.length > 0 ? `known ids: ${known.join(', ')}` : 'no background process has been started'
  return toolError(`unknown process id ${JSON.stringify(id)}; ${list}`, { known_ids: known })
}

/** `since`: where to read from; undefined: where the caller's previous poll stopped. */
export function poll (entry: BackgroundProcess, since: number | undefined): string {
  const from = since ?? entry.cursor
  const slice = entry.proc.output.read(from)
  entry.cursor = slice.next
  const result: Record<string, unknown> = { ...describe(entry), since: Math.min(from, slice.next), output: slice.text, next_since: slice.next }
  if (slice.omitted > 0) result.omitted_chars = slice.omitted
  return toolResult(result)
}
