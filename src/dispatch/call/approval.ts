// A person approves the exact call (trust.approval): which tools need it, the digest that binds an
// approval to one call (the tool, its validated arguments, its caller), and what the gate asks of
// whoever carries the call (the edge keeps the pending approvals: src/calls/approvals.ts).
import { createHash } from 'node:crypto'
import type { ToolEntry } from '../../registry/types.ts'
import { canonicalJson } from '../../shared/canonical-json.ts'

/** What the configuration says (trust.approval): tool names, or `{ tools, annotations }`. */
export type ApprovalSelection = readonly string[] | { readonly tools?: readonly string[], readonly annotations?: readonly string[] }

/** The part of `trust` the gate reads. */
export interface ApprovalSettings {
  readonly approval?: ApprovalSelection
}

/** A call held for approval, as the gate hands it over: its arguments are the validated ones. */
export interface ApprovalRequest {
  readonly tool: string
  readonly args: Record<string, unknown>
  /** sha256 of (tool, arguments, principal) in canonical JSON: what an approval is bound to. */
  readonly digest: string
  readonly callId: string
}

/** What became of a held call: run with the approved arguments, or refused with a reason the model reads. */
export type ApprovalVerdict =
  | { readonly approved: true, readonly args: Record<string, unknown>, readonly digest: string }
  | { readonly approved: false, readonly reason: string, readonly approvalId?: string, readonly pending?: boolean }

/** How the caller's side gets a call approved; rejects only when `signal` fires. */
export type Approve = (request: ApprovalRequest, signal: AbortSignal | undefined) => Promise<ApprovalVerdict>

/** The hints as MCP reads them: an undeclared one takes its cautious default; a readOnly tool does no harm. */
function hinted (entry: ToolEntry, hint: string): boolean {
  const { annotations } = entry
  if (annotations.readOnly === true) return false
  if (hint === 'destructive') return annotations.destructive ?? true
  if (hint === 'openWorld') return annotations.openWorld ?? true
  return false
}

/** Whether calls of `entry` wait for a person's approval. */
export function needsApproval (entry: ToolEntry, settings: ApprovalSettings | undefined): boolean {
  const selection = settings?.approval
  if (selection === undefined) return false
  if (Array.isArray(selection)) return selection.includes(entry.name)
  const { tools = [], annotations = [] } = selection as { tools?: readonly string[], annotations?: readonly string[] }
  return tools.includes(entry.name) || annotations.some((hint) => hinted(entry, hint))
}

/** The digest an approval is bound to: nothing of the call can change without changing it. */
export function approvalDigest (tool: string, args: unknown, principal: string | undefined): string {
  return createHash('sha256').update(canonicalJson({ tool, args, principal: principal ?? 'anonymous' }), 'utf8').digest('hex')
}
