// The calls held for a person's approval (trust.approval): each pending approval records the
// caller, the tool, the exact validated arguments and their digest; an operator lists them and
// approves or denies one (routes/approvals.ts), and the held call runs with exactly those
// arguments or ends with the reason. A call whose caller cannot wait (a batch, an MCP client that
// cannot open a URL) leaves its approval pending and is refused naming it; once approved, the same
// call (same digest: tool, arguments, caller) sent again runs, once. Unanswered approvals expire.
// The records are in memory, or in Redis shared by the replicas (approval-records.ts): any replica
// lists and decides, and the replica holding a call reads its approval every POLL_MS until decided.
import { randomUUID } from 'node:crypto'
import { ApprovalClosedError, ApprovalNotFoundError } from '../shared/errors.ts'
import type { ApprovalRequest, ApprovalVerdict } from '../dispatch/call/approval.ts'
import type { ApprovalRecords, ApprovalView } from './approval-records.ts'

export type { ApprovalStatus, ApprovalView } from './approval-records.ts'

export type Decision = 'approve' | 'deny'
type Closed = 'approved' | 'denied' | 'expired'

/** How often a replica holding a call reads its approval in the shared records (a decision made on another replica). */
const POLL_MS = 250

export interface ApprovalsOptions {
  records: ApprovalRecords
  /** Whether the records are shared with other replicas (then decisions are also polled for). */
  shared?: boolean
  /** How long an approval waits for its decision (trust.approvalTimeoutMs), read per approval. */
  timeoutMs: () => number
  /** How long a decided or expired approval is remembered (its second decision is a 409, not a 404). */
  keepMs: number
  /** Told of every approval asked for and every decision (the audit trail). */
  onEvent?: (event: 'requested' | Closed, view: ApprovalView) => void
  now?: () => number
}

/** A call waiting here for its approval. */
interface Waiting {
  readonly decided: PromiseWithResolvers<ApprovalView>
}

export class Approvals {
  readonly #options: ApprovalsOptions
  readonly #records: ApprovalRecords
  readonly #now: () => number
  readonly #waiting = new Map<string, Waiting>()
  readonly #timers = new Set<ReturnType<typeof setTimeout>>()
  #poller: ReturnType<typeof setInterval> | undefined

  constructor (options: ApprovalsOptions) {
    this.#options = options
    this.#records = options.records
    this.#now = options.now ?? Date.now
  }

  /** The pending approvals, oldest first. */
  async pending (): Promise<ApprovalView[]> {
    return await this.#records.pending()
  }

  async get (approvalId: string): Promise<ApprovalView | undefined> {
    return await this.#records.read(approvalId)
  }

  /** Holds the call until it is decided or its approval expires (or `signal` fires: the approval is withdrawn). */
  async wait (caller: string, request: ApprovalRequest, signal: AbortSignal | undefined, onPending?: (approvalId: string) => void): Promise<ApprovalVerdict> {
    const view = await this.#open(caller, request)
    onPending?.(view.approvalId)
    return await this.waitOn(view.approvalId, signal)
  }

  /** Holds the call until its approval (opened by check()) is decided or expires. */
  async waitOn (approvalId: string, signal: AbortSignal | undefined): Promise<ApprovalVerdict> {
    const waiting: Waiting = { decided: Promise.withResolvers() }
    this.#waiting.set(approvalId, waiting)
    const withdraw = (): void => { this.#close(approvalId, 'expired', 'the call was cancelled while it waited for approval').catch(() => {}) }
    signal?.addEventListener('abort', withdraw, { once: true })
    this.#poll()
    try {
      const now = await this.#records.read(approvalId)
      if (now === undefined) return { approved: false, approvalId, reason: `approval ${approvalId} is no longer known` }
      if (now.status !== 'pending') waiting.decided.resolve(now)
      return await this.#verdict(await waiting.decided.promise)
    } finally {
      signal?.removeEventListener('abort', withdraw)
      this.#waiting.delete(approvalId)
    }
  }

  /**
   * For a caller that cannot wait: an approved approval of this very call runs it (once); else its
   * pending approval (opened now, or the one already waiting for the same digest) is named.
   */
  async check (caller: string, request: ApprovalRequest): Promise<ApprovalVerdict> {
    const latest = await this.#records.byDigest(caller, request.digest)
    if (latest?.status === 'approved') {
      const verdict = await this.#verdict(latest)
      if (verdict.approved) return verdict
    }
    const view = latest?.status === 'pending' && Date.parse(latest.expiresAt) > this.#now() ? latest : await this.#open(caller, request)
    const { approvalId } = view
    return { approved: false, pending: true, approvalId, reason: `this call of ${request.tool} waits for a person's approval (approval ${approvalId}, asked at POST /admin/approvals/${approvalId}); send the same call again, with the same arguments, once it is approved` }
  }

  /** Approves or denies a pending approval; throws ApprovalNotFoundError or ApprovalClosedError (decided, expired) naming why. */
  async decide (approvalId: string, decision: Decision, reason: string | undefined, by: string): Promise<ApprovalView> {
    const view = await this.#records.read(approvalId)
    if (view === undefined) throw new ApprovalNotFoundError(approvalId)
    // Past its time on a replica whose timer has not run (or has gone): it expired all the same.
    if (view.status === 'pending' && Date.parse(view.expiresAt) <= this.#now()) await this.#close(approvalId, 'expired', `nobody decided it by ${view.expiresAt} (trust.approvalTimeoutMs)`)
    const closed = await this.#close(approvalId, decision === 'approve' ? 'approved' : 'denied', reason, by)
    if (closed.ok) return closed.view
    const now = closed.view
    if (now.status === 'expired') throw new ApprovalClosedError(`approval ${approvalId} expired at ${now.decidedAt ?? now.expiresAt} (${now.reason ?? 'nobody decided it in time'}); its call ended refused`)
    throw new ApprovalClosedError(`approval ${approvalId} was ${now.status === 'used' ? 'approved (and its call has run)' : now.status} already, by ${now.decidedBy ?? 'someone'} at ${now.decidedAt ?? '?'}`)
  }

  /** Withdraws a pending approval (its caller no longer waits): it reads expired, with the reason. */
  async withdraw (approvalId: string, reason: string): Promise<void> {
    await this.#close(approvalId, 'expired', reason)
  }

  /** Stops every timer (the gateway closes). */
  close (): void {
    for (const timer of this.#timers) clearTimeout(timer)
    clearInterval(this.#poller)
  }

  async #open (caller: string, request: ApprovalRequest): Promise<ApprovalView> {
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
    await this.#records.create(view, timeoutMs + this.#options.keepMs)
    const timer = setTimeout(() => {
      this.#timers.delete(timer)
      this.#close(view.approvalId, 'expired', `nobody approved it within ${timeoutMs} ms (trust.approvalTimeoutMs)`).catch(() => {})
    }, timeoutMs)
    timer.unref()
    this.#timers.add(timer)
    this.#options.onEvent?.('requested', { ...view })
    return view
  }

  /** Closes a pending approval (compare-and-set); the record as it then is. */
  async #close (approvalId: string, status: Closed, reason: string | undefined, by?: string): Promise<{ ok: boolean, view: ApprovalView }> {
    const current = await this.#records.read(approvalId)
    if (current === undefined) throw new ApprovalNotFoundError(approvalId)
    if (current.status !== 'pending') return { ok: false, view: current }
    const next: ApprovalView = { ...current, status, decidedAt: new Date(this.#now()).toISOString() }
    if (by !== undefined) next.decidedBy = by
    if (reason !== undefined && reason !== '') next.reason = reason
    const moved = await this.#records.transition(approvalId, 'pending', next, this.#options.keepMs)
    if (!moved.ok) return { ok: false, view: moved.view ?? current }
    this.#options.onEvent?.(status, { ...next })
    this.#waiting.get(approvalId)?.decided.resolve(next)
    return { ok: true, view: next }
  }

  /** The verdict of a closed approval; an approved one is used up by the one call it lets run. */
  async #verdict (view: ApprovalView): Promise<ApprovalVerdict> {
    if (view.status === 'approved') {
      const used = await this.#records.transition(view.approvalId, 'approved', { ...view, status: 'used' }, this.#options.keepMs)
      if (used.ok) return { approved: true, args: structuredClone(view.arguments), digest: view.digest }
      return { approved: false, approvalId: view.approvalId, reason: `approval ${view.approvalId} was used already by another call` }
    }
    const why = view.status === 'denied'
      ? `a person denied this call of ${view.tool}${view.reason === undefined ? '' : `: ${view.reason}`}`
      : `this call of ${view.tool} was not approved: ${view.reason ?? 'its approval expired'}`
    return { approved: false, approvalId: view.approvalId, reason: why }
  }

  /** With shared records: reads the approvals calls wait on here, for decisions made on other replicas. */
  #poll (): void {
    if (this.#options.shared !== true || this.#poller !== undefined) return
    this.#poller = setInterval(() => {
      if (this.#waiting.size === 0) {
        clearInterval(this.#poller)
        this.#poller = undefined
        return
      }
      for (const [approvalId, waiting] of this.#waiting) {
        this.#records.read(approvalId).then((view) => { if (view !== undefined && view.status !== 'pending') waiting.decided.resolve(view) }, () => {})
      }
    }, POLL_MS)
    this.#poller.unref()
  }
}
