// The calls held for a person's approval (trust.approval): each pending approval records the
// caller, the tool, the exact validated arguments and their digest; an operator lists them and
// approves or denies one (routes/approvals.ts), and the held call runs with exactly those
// arguments or ends with the reason. A call whose caller cannot wait (a batch, an MCP client that
// cannot open a URL) leaves its approval pending and is refused naming it; once approved, the same
// call (same digest: tool, arguments, caller) sent again runs, once. Unanswered approvals expire.
// Kept in this process's memory: with replicas, decide on the replica that lists the approval.
import { randomUUID } from 'node:crypto'
import { ApprovalClosedError, ApprovalNotFoundError } from '../shared/errors.ts'

/** A call handed over by the approval gate (src/dispatch/steps/approval-gate.ts): its validated arguments and their digest. */
export interface ApprovalRequest {
  readonly tool: string
  readonly args: Record<string, unknown>
  readonly digest: string
  readonly callId: string
}

/** What the gate is told: run with the approved arguments, or refused with a reason the model reads. */
export type ApprovalVerdict =
  | { readonly approved: true, readonly args: Record<string, unknown>, readonly digest: string }
  | { readonly approved: false, readonly reason: string, readonly approvalId?: string, readonly pending?: boolean }

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'used'

export interface ApprovalView {
  approvalId: string
  status: ApprovalStatus
  /** Whose call it is (the API key's name, `user:<sub>`, `anonymous`). */
  caller: string
  tool: string
  /** The exact arguments the call runs with, once approved. */
  arguments: Record<string, unknown>
  digest: string
  callId: string
  createdAt: string
  expiresAt: string
  decidedAt?: string
  decidedBy?: string
  reason?: string
}

export type Decision = 'approve' | 'deny'

export interface ApprovalsOptions {
  /** How long an approval waits for its decision (trust.approvalTimeoutMs), read per approval. */
  timeoutMs: () => number
  /** How long a decided or expired approval is remembered (its second decision is a 409, not a 404). */
  keepMs: number
  /** Told of every approval asked for and every decision (the audit trail). */
  onEvent?: (event: 'requested' | 'approved' | 'denied' | 'expired', view: ApprovalView) => void
  now?: () => number
}

interface Held {
  view: ApprovalView
  decided: PromiseWithResolvers<void>
  timer?: ReturnType<typeof setTimeout>
}

export class Approvals {
  readonly #held = new Map<string, Held>()
  readonly #options: ApprovalsOptions
  readonly #now: () => number

  constructor (options: ApprovalsOptions) {
    this.#options = options
    this.#now = options.now ?? Date.now
  }

  /** The pending approvals, oldest first. */
  pending (): ApprovalView[] {
    this.#forget()
    return [...this.#held.values()].filter((held) => held.view.status === 'pending').map((held) => ({ ...held.view }))
  }

  get (approvalId: string): ApprovalView | undefined {
    const held = this.#held.get(approvalId)
    return held === undefined ? undefined : { ...held.view }
  }

  /** Holds the call until it is decided or its approval expires (or `signal` fires: the approval is withdrawn). */
  async wait (caller: string, request: ApprovalRequest, signal: AbortSignal | undefined, onPending?: (approvalId: string) => void): Promise<ApprovalVerdict> {
    const held = this.#open(caller, request)
    onPending?.(held.view.approvalId)
    return await this.#waitFor(held, signal)
  }

  /** Holds the call until its approval, opened by check(), is decided or expires. */
  async waitOn (approvalId: string, signal: AbortSignal | undefined): Promise<ApprovalVerdict> {
    const held = this.#held.get(approvalId)
    if (held === undefined) return { approved: false, approvalId, reason: `approval ${approvalId} is no longer known` }
    return await this.#waitFor(held, signal)
  }

  async #waitFor (held: Held, signal: AbortSignal | undefined): Promise<ApprovalVerdict> {
    const withdraw = (): void => { if (held.view.status === 'pending') this.#close(held, 'expired', 'the call was cancelled while it waited for approval') }
    signal?.addEventListener('abort', withdraw, { once: true })
    try {
      await held.decided.promise
    } finally {
      signal?.removeEventListener('abort', withdraw)
    }
    return this.#verdict(held, true)
  }

  /**
   * For a caller that cannot wait: an approved approval of this very call runs it (once); else its
   * pending approval (opened now, or the one already waiting for the same digest) is named.
   */
  check (caller: string, request: ApprovalRequest): ApprovalVerdict {
    for (const held of this.#held.values()) {
      if (held.view.caller === caller && held.view.digest === request.digest && held.view.status === 'approved') return this.#verdict(held, true)
    }
    const existing = [...this.#held.values()].find((held) => held.view.caller === caller && held.view.digest === request.digest && held.view.status === 'pending')
    const held = existing ?? this.#open(caller, request)
    const { approvalId } = held.view
    return { approved: false, pending: true, approvalId, reason: `this call of ${request.tool} waits for a person's approval (approval ${approvalId}, asked at POST /admin/approvals/${approvalId}); send the same call again, with the same arguments, once it is approved` }
  }

  /** Approves or denies a pending approval; throws ApprovalNotFoundError or ApprovalClosedError (decided, expired) naming why. */
  decide (approvalId: string, decision: Decision, reason: string | undefined, by: string): ApprovalView {
    this.#forget()
    const held = this.#held.get(approvalId)
    if (held === undefined) throw new ApprovalNotFoundError(approvalId)
    const { status } = held.view
    if (status === 'expired') throw new ApprovalClosedError(`approval ${approvalId} expired at ${held.view.decidedAt ?? held.view.expiresAt}: nobody decided it in time, and its call ended refused`)
    if (status !== 'pending') throw new ApprovalClosedError(`approval ${approvalId} was ${status === 'used' ? 'approved (and its call has run)' : status} already, by ${held.view.decidedBy ?? 'someone'} at ${held.view.decidedAt ?? '?'}`)
    held.view.decidedBy = by
    this.#close(held, decision === 'approve' ? 'approved' : 'denied', reason)
    return { ...held.view }
  }

  /** Stops every timer (the gateway closes). */
  close (): void {
    for (const held of this.#held.values()) clearTimeout(held.timer)
  }

  #open (caller: string, request: ApprovalRequest): Held {
    this.#forget()
    const now = this.#now()
    const timeoutMs = this.#options.timeoutMs()
    const view: ApprovalView = {
      approvalId: `apr_${randomUUID()}`,
      status: 'pending',
      caller,
      tool: request.tool,
      // A copy of its own: nothing the call does afterwards can change what was approved.
      arguments: structuredClone(request.args),
      digest: request.digest,
      callId: request.callId,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + timeoutMs).toISOString()
    }
    const held: Held = { view, decided: Promise.withResolvers() }
    held.timer = setTimeout(() => { if (held.view.status === 'pending') this.#close(held, 'expired', `nobody approved it within ${timeoutMs} ms (trust.approvalTimeoutMs)`) }, timeoutMs)
    held.timer.unref()
    this.#held.set(view.approvalId, held)
    this.#options.onEvent?.('requested', { ...view })
    return held
  }

  #close (held: Held, status: 'approved' | 'denied' | 'expired', reason: string | undefined): void {
    clearTimeout(held.timer)
    held.view.status = status
    held.view.decidedAt = new Date(this.#now()).toISOString()
    if (reason !== undefined && reason !== '') held.view.reason = reason
    this.#options.onEvent?.(status, { ...held.view })
    held.decided.resolve()
  }

  /** The verdict of a closed approval; an approved one is used up by the call it lets run. */
  #verdict (held: Held, consume: boolean): ApprovalVerdict {
    const { view } = held
    if (view.status === 'approved') {
      if (consume) view.status = 'used'
      return { approved: true, args: structuredClone(view.arguments), digest: view.digest }
    }
    const why = view.status === 'denied'
      ? `a person denied this call of ${view.tool}${view.reason === undefined ? '' : `: ${view.reason}`}`
      : `this call of ${view.tool} was not approved: ${view.reason ?? 'its approval expired'}`
    return { approved: false, approvalId: view.approvalId, reason: why }
  }

  /** Forgets approvals closed more than keepMs ago. */
  #forget (): void {
    const before = this.#now() - this.#options.keepMs
    for (const [id, held] of this.#held) {
      if (held.view.decidedAt !== undefined && held.view.status !== 'approved' && Date.parse(held.view.decidedAt) < before) this.#held.delete(id)
    }
  }
}
