// GET /admin/audit: the latest lines of the audit trail for operators, since an ISO time or after
// a cursor, a bounded page at a time, from the ring the gateway keeps in memory (audit.memoryLines;
// older lines are in audit.file). For operators only: a key or token limited to toolsets is refused.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { auditContext } from '../src/http/audit.ts'
import { BadRequestError } from '../src/shared/errors.ts'

const ERROR = Type.Ref('ErrorBody')

const PAGE = {
  config: { operatorOnly: true },
  schema: {
    summary: 'Read the audit trail',
    description: 'The audit lines (calls, approvals, pin approvals, admin actions, refused authentications) at or after `since`, or after `cursor`, oldest first, at most `limit` (audit.maxPageLines). Pass the answer\'s `cursor` for the next page; `truncated`: lines older than memory keeps were asked for (they are in audit.file). Operators only; the read is itself recorded.',
    tags: ['admin'],
    querystring: Type.Object({
      since: Type.Optional(Type.String({ maxLength: 64, description: 'An ISO 8601 time: lines recorded at or after it.' })),
      cursor: Type.Optional(Type.String({ pattern: '^\\d{1,15}$', description: 'The `cursor` of the previous page: the lines after it.' })),
      limit: Type.Optional(Type.String({ pattern: '^\\d{1,6}$', description: 'Most lines to answer; default and cap audit.maxPageLines.' }))
    }),
    response: {
      200: Type.Object({
        lines: Type.Array(Type.Object({}, { additionalProperties: true }), { description: 'The audit lines, each the JSON object of one line of audit.file.' }),
        cursor: Type.String({ description: 'The `seq` of the last line answered (the given cursor when none): where the next page starts.' }),
        truncated: Type.Boolean({ description: 'Whether lines older than the ones kept in memory were asked for.' })
      }),
      400: ERROR,
      401: ERROR,
      403: ERROR
    }
  }
}

const auditRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { maxPageLines } = app.gateway.config.audit
  app.get('/admin/audit', PAGE, async (request) => {
    const { since, cursor, limit } = request.query
    const sinceMs = since === undefined ? undefined : Date.parse(since)
    if (sinceMs !== undefined && Number.isNaN(sinceMs)) throw new BadRequestError(`since must be an ISO 8601 time, such as 2026-12-04T21:00:00Z (got ${JSON.stringify(since)})`)
    const page = app.audit.page({
      since: sinceMs,
      cursor: cursor === undefined ? undefined : Number(cursor),
      limit: Math.max(1, Math.min(maxPageLines, limit === undefined ? maxPageLines : Number(limit)))
    })
    app.audit.record({ type: 'admin', action: 'audit_read', status: 'ok', ...auditContext(request), detail: { since, cursor, lines: page.lines.length } })
    return { lines: page.lines.map((line) => JSON.parse(line) as Record<string, unknown>), cursor: String(page.cursor), truncated: page.truncated }
  })
}

export default auditRoutes
