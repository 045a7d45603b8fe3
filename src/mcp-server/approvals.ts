// How a tools/call of a tool in trust.approval gets its approval over MCP. A client that can open a
// URL (elicitation.url) is asked to, with a URL elicitation pointing at the approval, and the call
// waits for the decision (a 2026-07-28 client answers input_required and its retry waits; a 2025
// session gets elicitation/create on the call's stream); declined or cancelled there, the approval
// is withdrawn and the call refused. Any other client gets the tool's error
// naming the approval and its URL; once approved, the same call sent again runs, once.
import type { FastifyInstance } from 'fastify'
import type { Asker } from '../calls/question-relay.ts'
import type { Approve } from '../dispatch/call/approval.ts'

/** Where an operator finds the approval: the gateway's own address, or its public one (auth.oauth.resource). */
function approvalUrl (app: FastifyInstance, approvalId: string): string {
  const resource = app.gateway.config.auth.oauth?.resource
  let base: string
  if (resource !== undefined) {
    base = new URL(resource).origin
  } else {
    const address = app.server.address()
    const port = typeof address === 'object' && address !== null ? address.port : app.gateway.config.port
    const host = app.gateway.config.host.includes(':') ? `[${app.gateway.config.host}]` : app.gateway.config.host
    base = `http://${host}:${port}`
  }
  return `${base}/admin/approvals/${approvalId}`
}

export function approveOverMcp (app: FastifyInstance, caller: string, ask: Asker): Approve {
  const { store } = app.approvals
  return async (request, signal) => {
    // Over --stdio the gateway serves no HTTP: nobody could reach the approval to decide it.
    if (!app.server.listening) return { approved: false, reason: `tool ${request.tool} runs only once a person approves the call (trust.approval), which needs the gateway served over HTTP (GET /admin/approvals); over --stdio it is refused` }
    const checked = await store.check(caller, request)
    if (checked.approved || checked.approvalId === undefined) return checked
    const url = approvalUrl(app, checked.approvalId)
    const message = `The call of ${request.tool} waits for a person's approval (approval ${checked.approvalId}); it runs once an operator approves it at ${url}.`
    let action: unknown
    try {
      const answers = await ask({ approval: { method: 'elicitation/create', params: { mode: 'url', message, url, elicitationId: checked.approvalId } } }, signal ?? new AbortController().signal)
      action = (answers.approval as { action?: unknown } | undefined)?.action
    } catch (err) {
      // The client cannot open a URL (or left): the tool's error names the approval and its URL.
      if (signal?.aborted === true) throw err
      return { ...checked, reason: `${checked.reason}; an operator decides it at ${url}` }
    }
    if (action === 'decline' || action === 'cancel') {
      // The user would not wait for it: nobody is left to run the call for, so the approval goes.
      const reason = `the caller ${action === 'decline' ? 'declined' : 'cancelled'} the approval of this call of ${request.tool}; it was not run`
      await store.withdraw(checked.approvalId, reason).catch(() => {})
      return { approved: false, approvalId: checked.approvalId, reason }
    }
    return await store.waitOn(checked.approvalId, signal)
  }
}
