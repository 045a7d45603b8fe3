// The calls held for a person's approval (trust.approval) as `app.approvals`: the store of pending
// approvals (src/calls/approvals.ts), whether a tool's calls need one, and the two ways a caller's
// side gets a call approved: a call that runs on (Prefer: respond-async, and a plain REST call of
// such a tool, answered 202 at once) waits for the decision, shown as `pending_approval` at
// GET /calls/:id; any other caller (a batch, /mcp) is refused naming the approval, and the same
// call sent again once it is approved runs.
import fp from 'fastify-plugin'
import { MemoryApprovalRecords } from '../calls/approval-records.ts'
import { Approvals } from '../calls/approvals.ts'
import type { HeldCall } from '../calls/call-record.ts'
import { needsApproval, type ApprovalSettings, type Approve } from '../dispatch/call/approval.ts'

declare module 'fastify' {
  interface FastifyInstance {
    approvals: ApprovalDesk
  }
}

export interface ApprovalDesk {
  readonly store: Approvals
  /** Whether calls of the tool `name` (as the registry has it now) wait for approval. */
  gated: (name: string) => boolean
  /** For a call that runs on: waits for the decision, the held call showing `pending_approval` meanwhile. */
  waiting: (caller: string, held: HeldCall) => Approve
  /** For a caller that cannot wait: runs an approved call once, else refuses it naming its approval. */
  refusing: (caller: string) => Approve
}

/** Decided and expired approvals are remembered this long, so that deciding one again says why it cannot be. */
const KEEP_MS = 3_600_000

// Not `export default fp(...)`: TypeScript 6.0 leaves the `.ts` of a dynamic import inside an
// `export default` expression as it is, and the compiled build could not load the module.
const approvalsPlugin = fp(async function approvals (app) {
  const { gateway } = app
  const settings = (): ApprovalSettings & { approvalTimeoutMs?: number } => (gateway.config as { trust?: ApprovalSettings & { approvalTimeoutMs?: number } }).trust ?? {}
  const log = app.log.child({ component: 'approvals' })
  // With Redis the replicas share the approvals: any one lists and decides them.
  const shared = app.redis === undefined ? undefined : new (await import('../calls/redis-approval-records.ts')).RedisApprovalRecords(app.redis)
  const store = new Approvals({
    records: shared ?? new MemoryApprovalRecords(),
    shared: shared !== undefined,
    timeoutMs: () => settings().approvalTimeoutMs ?? 600_000,
    keepMs: KEEP_MS,
    // Who asked for what, and who decided: the audit trail's record of every held call.
    onEvent: (event, view) => {
      log.info({ event, approvalId: view.approvalId, caller: view.caller, tool: view.tool, callId: view.callId, decidedBy: view.decidedBy, reason: view.reason }, `approval ${event}`)
      if (!app.audit.enabled) return
      const detail = { approvalId: view.approvalId, digest: view.digest, ...(view.reason === undefined ? {} : { reason: view.reason }) }
      app.audit.record({ type: 'approval', tool: view.tool, callId: view.callId, decision: event, principal: view.caller, ...(view.decidedBy === undefined ? {} : { by: view.decidedBy }), detail })
    }
  })
  const gated = (name: string): boolean => {
    const entry = gateway.registry.snapshot().tools.get(name)
    return entry !== undefined && needsApproval(entry, settings())
  }
  const waiting = (caller: string, held: HeldCall): Approve => async (request, signal) => {
    try {
      return await store.wait(caller, request, signal, (approvalId) => { held.holdForApproval(approvalId).catch(() => {}) })
    } finally {
      await held.holdForApproval(undefined).catch(() => {})
    }
  }
  const refusing = (caller: string): Approve => async (request) => await store.check(caller, request)
  app.decorate('approvals', { store, gated, waiting, refusing })
  app.addHook('onClose', async () => { store.close() })
}, { name: 'approvals', dependencies: ['audit', 'shared-state'] })

export default approvalsPlugin
