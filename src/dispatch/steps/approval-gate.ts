// The approval gate (trust.approval): after validation and the pre_tool_call hooks, so that what a
// person approves is exactly what the handler would get, a call of a tool that needs approval is
// handed to the caller's side (request.approve), which holds it until a person decides. Approved,
// it runs with the approved arguments, checked against the digest they were approved under;
// denied or expired, it ends blocked with the reason, which the model reads.
import { approvalDigest, needsApproval, type ApprovalSettings } from '../call/approval.ts'
import { failed } from '../call/outcome.ts'
import { entryOf, type Step } from '../call/pipeline.ts'

export const approvalStep: Step = async function approvalGate (call, next) {
  const entry = entryOf(call)
  if (!needsApproval(entry, (call.config as { trust?: ApprovalSettings }).trust)) return await next(call)
  const { request } = call
  if (request.approve === undefined) {
    const where = request.outer === undefined
      ? 'this caller cannot wait for an approval: call it over HTTP'
      : `a call made by ${request.outer.tool} cannot wait for one: call ${entry.name} directly, where it waits for its approval`
    return failed('blocked', `tool ${entry.name} runs only once a person approves the call (trust.approval), and ${where}`)
  }
  const digest = approvalDigest(entry.name, call.args, request.principal)
  const verdict = await request.approve({ tool: entry.name, args: call.args, digest, callId: call.callId }, request.signal)
  if (!verdict.approved) {
    const fields = verdict.approvalId === undefined ? undefined : { approvalId: verdict.approvalId, ...(verdict.pending === true ? { status: 'pending_approval' } : {}) }
    const result = failed('blocked', verdict.reason, fields)
    return verdict.pending === true && verdict.approvalId !== undefined ? { ...result, pendingApproval: verdict.approvalId } : result
  }
  // What runs is what was approved, byte for byte: a digest that no longer matches is refused.
  if (approvalDigest(entry.name, verdict.args, request.principal) !== digest || verdict.digest !== digest) {
    return failed('blocked', `the approved arguments of this call of ${entry.name} do not match its digest; it was not run`)
  }
  call.args = structuredClone(verdict.args)
  return await next(call)
}
