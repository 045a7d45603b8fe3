// One event as its audit line: the time, a sequence number (the cursor of GET /admin/audit), the
// event's fields, and for a call the digest of its arguments in place of their values.
import { createHash } from 'node:crypto'
import type { AuditEvent } from './event.ts'

/** What the line keeps of a call's arguments beyond their digest (audit.arguments: true), redacted. */
export type ArgumentsRedactor = (args: unknown) => unknown

/** The SHA-256 of the arguments as sent: a JSON string as it is, anything else as its JSON. */
export function argumentsDigest (args: unknown): string {
  const text = typeof args === 'string' ? args : JSON.stringify(args ?? null)
  return 'sha256:' + createHash('sha256').update(text, 'utf8').digest('hex')
}

export interface AuditLine {
  readonly seq: number
  readonly time: number
  /** The event's type (call, approval, pin, admin, auth_refused). */
  readonly type: string
  readonly text: string
}

/** The JSON line of `event` (without its newline) recorded at `time` (`iso`: the same, as ISO text); `redact` given: the call's arguments too. */
export function auditLine (event: AuditEvent, seq: number, time: number, iso: string, redact: ArgumentsRedactor | undefined): AuditLine {
  let body: Record<string, unknown> = event as unknown as Record<string, unknown>
  if (event.type === 'call') {
    const { args, ...rest } = event
    body = { ...rest, argsDigest: argumentsDigest(args) }
    if (redact !== undefined) body.args = redact(args)
  }
  // time and seq first, so a reader (and a human) finds them at the start of each line.
  const text = JSON.stringify({ time: iso, seq, ...body })
  return { seq, time, type: event.type, text }
}
