// Where pending approvals are kept (src/calls/approvals.ts): in this process's memory, or in the
// Redis the replicas share (redis-approval-records.ts), so that any replica lists them and decides
// one, and the replica holding the call learns the decision. Every change of status is a
// compare-and-set, so that two operators deciding at once, or a decision racing the expiry, end
// with one winner and the other told why.

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

export interface ApprovalRecords {
  /** A new pending approval, kept `keepMs`. */
  create: (view: ApprovalView, keepMs: number) => Promise<void>
  read: (approvalId: string) => Promise<ApprovalView | undefined>
  /** The pending approvals, oldest first. */
  pending: () => Promise<ApprovalView[]>
  /** The latest approval of this caller's call with this digest. */
  byDigest: (caller: string, digest: string) => Promise<ApprovalView | undefined>
  /** Records `next` only while the approval's status is still `from`; false (and the record as it is) otherwise. */
  transition: (approvalId: string, from: ApprovalStatus, next: ApprovalView, keepMs: number) => Promise<{ ok: boolean, view?: ApprovalView }>
}

interface Kept { view: ApprovalView, until: number }

/** This process's approvals; forgotten `keepMs` after their last change. */
export class MemoryApprovalRecords implements ApprovalRecords {
  readonly #kept = new Map<string, Kept>()
  readonly #digests = new Map<string, string>()
  readonly #now: () => number

  constructor (now: () => number = Date.now) {
    this.#now = now
  }

  async create (view: ApprovalView, keepMs: number): Promise<void> {
    this.#forget()
    this.#kept.set(view.approvalId, { view: structuredClone(view), until: this.#now() + keepMs })
    this.#digests.set(`${view.caller}\n${view.digest}`, view.approvalId)
  }

  async read (approvalId: string): Promise<ApprovalView | undefined> {
    this.#forget()
    const kept = this.#kept.get(approvalId)
    return kept === undefined ? undefined : structuredClone(kept.view)
  }

  async pending (): Promise<ApprovalView[]> {
    this.#forget()
    return [...this.#kept.values()].filter((kept) => kept.view.status === 'pending').map((kept) => structuredClone(kept.view))
  }

  async byDigest (caller: string, digest: string): Promise<ApprovalView | undefined> {
    const id = this.#digests.get(`${caller}\n${digest}`)
    return id === undefined ? undefined : await this.read(id)
  }

  async transition (approvalId: string, from: ApprovalStatus, next: ApprovalView, keepMs: number): Promise<{ ok: boolean, view?: ApprovalView }> {
    const kept = this.#kept.get(approvalId)
    if (kept === undefined) return { ok: false }
    if (kept.view.status !== from) return { ok: false, view: structuredClone(kept.view) }
    this.#kept.set(approvalId, { view: structuredClone(next), until: this.#now() + keepMs })
    return { ok: true, view: structuredClone(next) }
  }

  #forget (): void {
    const now = this.#now()
    for (const [id, kept] of this.#kept) {
      if (kept.until > now) continue
      this.#kept.delete(id)
      const key = `${kept.view.caller}\n${kept.view.digest}`
      if (this.#digests.get(key) === id) this.#digests.delete(key)
    }
  }
}
