// GET /admin/approvals lists the calls held for a person's approval (trust.approval): the caller,
// the tool and the exact arguments each would run with; POST /admin/approvals/:id approves one
// (it runs with exactly those arguments, bound by their digest) or denies it (it ends with the
// reason, which the model reads). For operators only (operatorOnly, src/http/auth.ts): a key limited
// to toolsets, or a token without auth.oauth.adminScope, is refused with 403.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { ApprovalNotFoundError } from '../src/shared/errors.ts'

const Approval = Type.Object({
  approvalId: Type.String({ description: 'What POST /admin/approvals/{approvalId} decides.' }),
  status: Type.Enum(['pending', 'approved', 'denied', 'expired', 'used'], { description: '`pending` until decided; `used` once an approved call has run; `expired` when nobody decided in time (trust.approvalTimeoutMs).' }),
  caller: Type.String({ description: 'Whose call it is: the API key\'s name, `user:<sub>`, or `anonymous`.' }),
  tool: Type.String({ description: 'The tool called.' }),
  arguments: Type.Object({}, { additionalProperties: true, description: 'The exact arguments, validated, that the call runs with once approved.' }),
  digest: Type.String({ description: 'sha256 of the tool, the arguments and the caller, in canonical JSON: what the approval is bound to.' }),
  callId: Type.String({ description: 'The call\'s id (GET /calls/{callId} for its caller, when it runs on).' }),
  createdAt: Type.String({ description: 'When the call asked for approval (ISO 8601).' }),
  expiresAt: Type.String({ description: 'When it expires unless decided.' }),
  decidedAt: Type.Optional(Type.String({ description: 'When it was decided (or expired).' })),
  decidedBy: Type.Optional(Type.String({ description: 'Who decided it.' })),
  reason: Type.Optional(Type.String({ description: 'The reason given with the decision, or why it expired.' }))
}, { description: 'A call held for approval.' })

const ERROR = Type.Ref('ErrorBody')

const LIST = {
  config: { operatorOnly: true },
  schema: {
    summary: 'List the calls waiting for approval',
    description: 'The calls of tools in trust.approval that wait for a person\'s decision, oldest first, each with its caller, tool and exact arguments. Operators only.',
    tags: ['admin'],
    response: { 200: Type.Object({ approvals: Type.Array(Approval, { description: 'The pending approvals, oldest first.' }) }), 401: ERROR, 403: ERROR }
  }
}

const ApprovalParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,100}$', description: 'The approvalId.' }) })

const ONE = {
  config: { operatorOnly: true },
  schema: {
    summary: 'Read one approval',
    description: 'A call held for approval, pending or decided (decided and expired ones are remembered for an hour): where the URL an MCP client is shown points. Operators only.',
    tags: ['admin'],
    params: ApprovalParams,
    response: { 200: Approval, 401: ERROR, 403: ERROR, 404: ERROR }
  }
}

const DECIDE = {
  config: { operatorOnly: true },
  schema: {
    summary: 'Approve or deny a call',
    description: 'Approved, the call runs with exactly the arguments listed (a call that waits goes on; a caller that was refused naming the approval sends the same call again, which runs once). Denied, the call ends blocked with the reason, which the model reads. An unknown approval is a 404; one decided already or expired is a 409 saying which. Operators only.',
    tags: ['admin'],
    params: ApprovalParams,
    body: Type.Object({
      decision: Type.Enum(['approve', 'deny'], { description: 'What becomes of the call.' }),
      reason: Type.Optional(Type.String({ maxLength: 2000, description: 'Why; a denial\'s reason is what the model reads.' }))
    }, { additionalProperties: false }),
    response: { 200: Approval, 400: ERROR, 401: ERROR, 403: ERROR, 404: ERROR, 409: ERROR }
  }
}

/** Who decides: the operator's key or token (operatorOnly has refused anyone else, 403). */
function deciderOf (request: FastifyRequest): string {
  return request.principal?.name ?? 'anonymous'
}

const approvalsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { store } = app.approvals

  app.get('/admin/approvals', LIST, async (request) => {
    return { approvals: await store.pending() }
  })

  app.get('/admin/approvals/:id', ONE, async (request) => {
    const view = await store.get(request.params.id)
    if (view === undefined) throw new ApprovalNotFoundError(request.params.id)
    return view
  })

  app.post('/admin/approvals/:id', DECIDE, async (request) => {
    const by = deciderOf(request)
    return await store.decide(request.params.id, request.body.decision, request.body.reason, by)
  })
}

export default approvalsRoutes
