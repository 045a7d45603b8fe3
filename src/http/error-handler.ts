// Every error answers JSON: the error body on ordinary routes and the dispatch envelope on
// dispatch routes (so an agent always has a `content` to hand the model). A 5xx never carries
// internals: the fault is logged with the request id and the client gets a generic message.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { STATUS_CODES } from 'node:http'
import { BadRequestError, BodyTooLargeError, InternalError, NotFoundError, UnsupportedMediaTypeError } from '../errors.ts'
import { toolError } from '../registry/tool-result.ts'
import type { EnvelopeType } from './schemas.ts'

interface Classified { statusCode: number, code: string, message: string }

/** Code and status from the one error registry, with this message. */
function as (ErrorClass: new (message: string) => { code: string, statusCode?: number }, message: string): Classified {
  const { code, statusCode } = new ErrorClass(message)
  return { statusCode: statusCode ?? 500, code, message }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Errors on this route answer the dispatch envelope. */
    envelope?: boolean
  }
}

function classify (err: FastifyError, request: FastifyRequest, bodyLimit: number): Classified {
  if (err.validation) return as(BadRequestError, err.message)
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return as(BodyTooLargeError, `request body is larger than the limit of ${bodyLimit} bytes`)
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return as(UnsupportedMediaTypeError,
        `send a JSON body with Content-Type: application/json (got ${JSON.stringify(request.headers['content-type'] ?? '')})`)
  }
  const status = err.statusCode ?? 500
  // Our own errors carry messages written for clients; a 500 among them is still a fault to hide.
  if (typeof err.code === 'string' && err.code.startsWith('GW_ERR_') && status !== 500) {
    return { statusCode: status, code: err.code, message: err.message }
  }
  if (status >= 400 && status < 500) return { ...as(BadRequestError, err.message), statusCode: status }
  return as(InternalError, `internal error; the gateway log has the details under request id ${request.id}`)
}

const ENVELOPE_STATUS: Record<number, EnvelopeType['status']> = {
  401: 'blocked', 403: 'blocked', 404: 'not_found', 429: 'unavailable', 503: 'unavailable', 504: 'timeout'
}

/** The dispatch envelope for a failure that happened before (or around) the tool call. */
function failureEnvelope (tool: string, callId: string, code: string, message: string, statusCode: number): EnvelopeType {
  const content = toolError(message)
  return {
    tool,
    callId,
    ok: false,
    status: ENVELOPE_STATUS[statusCode] ?? (statusCode >= 500 ? 'error' : 'invalid'),
    content,
    truncated: false,
    originalLength: content.length,
    durationMs: 0,
    error: { code, message }
  }
}

export function sendError (request: FastifyRequest, reply: FastifyReply, failure: Classified): FastifyReply {
  // Answers that never reach a route handler (404, and errors before the handler) carry the
  // request id too; see requestIdAndDraining in app.ts.
  reply.header('x-request-id', request.id)
  reply.code(failure.statusCode)
  if (request.routeOptions.config?.envelope) {
    const tool = (request.params as { name?: string } | undefined)?.name ?? ''
    const callId = String(request.headers['x-tool-call-id'] ?? '')
    return reply.send(failureEnvelope(tool, callId, failure.code, failure.message, failure.statusCode))
  }
  return reply.send({
    statusCode: failure.statusCode,
    code: failure.code,
    error: STATUS_CODES[failure.statusCode] ?? 'Error',
    message: failure.message
  })
}

export function installErrorHandling (app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const failure = classify(err, request, bodyLimit)
    if (failure.statusCode >= 500) request.log.error({ err }, 'unexpected fault')
    else request.log.info({ code: failure.code, reason: err.message }, 'request refused')
    return sendError(request, reply, failure)
  })
  app.setNotFoundHandler((request, reply) => sendError(request, reply,
    as(NotFoundError, `no route ${request.method} ${request.url.split('?')[0]}`)))
}
