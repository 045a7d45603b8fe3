// The caller behind an MCP message that came over /mcp: the HTTP request that carried it decides
// everything, as it would for a REST call (its key's scope, `?toolsets=&disabled=`, the per-call
// headers, its logger with the request id, its connection's cancellation).
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Logger } from 'pino'
import { selectionCacheKey, type Caller } from '../access/caller.ts'
import { auditContext } from '../http/audit.ts'
import { commaList, numericHeader, selectionList } from '../http/query.ts'

/** Throws the BadRequestError of a bad query or header; the SDK answers it as the message's error. */
export function callerOfRequest (app: FastifyInstance, request: FastifyRequest): Caller {
  const query = request.query as { toolsets?: string, disabled?: string }
  const { headers, scope } = request
  const toolsets = selectionList(query.toolsets, 'toolsets')
  const disabled = commaList(query.disabled)
  return {
    scope,
    principal: request.principal?.name,
    identity: request.identity,
    logger: request.log as unknown as Logger,
    selection: { toolsets, disabled, cacheKey: selectionCacheKey(scope, toolsets, disabled) },
    limits: {
      timeoutMs: numericHeader(headers, 'x-tool-timeout-ms'),
      maxResultChars: numericHeader(headers, 'x-max-result-chars')
    },
    cancellation: app.calls.cancellationOf(request),
    sessionId: headers['x-session-id'] as string | undefined,
    trace: app.tracer === undefined ? undefined : request.traceSpan?.context,
    requestId: request.id,
    traceId: app.audit.enabled ? auditContext(request).traceId : undefined
  }
}
