// POST /admin/tools/:name/approve: an operator takes the definition an upstream tool lists now as
// its pin, and the tool held back for it is served again, on every replica (docs/trust.md).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { auditContext } from '../src/http/audit.ts'
import { ToolTrustReport } from '../src/reports/tool-trust.ts'

const ERROR = Type.Ref('ErrorBody')

const trustRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/admin/tools/:name/approve', {
    config: { operatorOnly: true },
    schema: {
      summary: 'Approve the definition of a held upstream tool',
      description: 'Pins the definition the tool\'s MCP server lists now (a change since it was approved, a new tool of a known server, findings under trust.holdSuspicious) and serves it again; other replicas follow within trust.syncIntervalMs. A tool that is not an upstream one listed now is a 404; one that is not held is a 409; a pin store that cannot be written is a 503 and the tool stays held. Operators only: a key not limited to toolsets, or a token with auth.oauth.adminScope.',
      tags: ['admin'],
      params: Type.Object({ name: Type.String({ minLength: 1, maxLength: 256, description: 'The tool name, as /tools lists it (mcp__<server>__<tool>).' }) }),
      response: { 200: ToolTrustReport, 401: ERROR, 403: ERROR, 404: ERROR, 409: ERROR, 503: ERROR }
    }
  }, async (request) => {
    const { name } = request.params
    const by = request.principal?.name ?? 'anonymous'
    const trust = await app.gateway.trust.approve(name, by)
    app.audit.record({ ...auditContext(request), type: 'pin', tool: name, decision: 'approved', digest: trust.digest, by })
    return trust
  })
}

export default trustRoutes
