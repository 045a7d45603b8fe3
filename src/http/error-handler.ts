// Every error answers JSON: the error body on ordinary routes, the dispatch envelope on dispatch
// routes (so an agent always has a `content` to hand the model) and a JSON-RPC error on /mcp (what
// an MCP client parses). A 5xx never carries internals: the fault is logged with the request id and
// the client gets a generic message.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { clipText } from '../shared/clip-text.ts'
import { buildOutcome, failed, statusOfError, type DispatchOutcome } from '../dispatch/call/outcome.ts'
import { BadRequestError, BodyTooLargeError, InternalError, NotFoundError, UnsupportedMediaTypeError } from '../shared/errors.ts'

// Not `import ... from 'node:http'`: an ES import of node:http reads every export of the module,
// and three of them (WebSocket, CloseEvent, MessageEvent) load Node's bundled undici, some 100 ms
// of a start that never uses it (test/lazy-loading.test.ts).
const { STATUS_CODES } = process.getBuiltinModule('node:http')

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Errors on this route answer the dispatch envelope. */
    envelope?: boolean
    /** Errors on this route answer a JSON-RPC error without id, as MCP's HTTP transport allows. */
    jsonRpc?: boolean
  }
}

/** An error as the client will see it: a code from the one error registry, its status, a message. */
interface Refusal { code: string, statusCode: number, message: string }

function refusal (error: { code: string, statusCode: number }, message: string): Refusal {
  return { code: error.code, statusCode: error.statusCode, message }
}

// Messages may quote the request (a URL, a header, Fastify's schema errors): an error body stays
// bounded whatever the request was.
const MAX_MESSAGE_CHARS = 1000

function classify (err: FastifyError, request: FastifyRequest, bodyLimit: number): Refusal {
  if (err.validation) return refusal(BadRequestError, err.message)
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return refusal(BodyTooLargeError, `request body is larger than the limit of ${bodyLimit} bytes`)
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return refusal(UnsupportedMediaTypeError,
        `send a JSON body with Content-Type: application/json (got ${JSON.stringify(request.headers['content-type'] ?? '')})`)
  }
  const status = err.statusCode ?? 500
  // Our own errors carry messages written for clients; a 500 among them is still a fault to hide.
  if (typeof err.code === 'string' && err.code.startsWith('GW_ERR_') && status !== 500) {
    return { statusCode: status, code: err.code, message: err.message }
  }
  if (status >= 400 && status < 500) return { code: BadRequestError.code, statusCode: status, message: err.message }
  return refusal(InternalError, `internal error; the gateway log has the details under request id ${request.id}`)
}

/** The dispatch envelope of a refusal, its message already cleaned. */
function envelopeOf (request: FastifyRequest, failure: Refusal): DispatchOutcome {
  const tool = (request.params as { name?: string } | undefined)?.name ?? ''
  const callId = String(request.headers['x-tool-call-id'] ?? '')
  return buildOutcome(tool, callId, failed(statusOfError(failure.code, failure.statusCode), failure.message), 0, failure)
}

/**
 * The envelope and HTTP status an error thrown on a dispatch route answers, for a route that has
 * already begun its answer (an event stream) and sends it itself; logged as the handler would.
 */
export function refusalEnvelope (request: FastifyRequest, err: FastifyError): { status: number, outcome: DispatchOutcome } {
  const failure = classify(err, request, request.server.initialConfig.bodyLimit ?? 0)
  if (failure.statusCode >= 500) request.log.error({ err }, 'unexpected fault')
  else request.log.info({ code: failure.code, reason: err.message }, 'request refused')
  const cleaned = { ...failure, message: clipText(request.server.gateway.errorContent.text(failure.message), MAX_MESSAGE_CHARS) }
  return { status: failure.statusCode, outcome: envelopeOf(request, cleaned) }
}

/** Answers a refusal: the dispatch envelope on envelope routes, the error body elsewhere. */
function sendRefusal (request: FastifyRequest, reply: FastifyReply, failure: Refusal): FastifyReply {
  // Answers that never reach a route handler (404, errors before the handler) carry the request
  // id too; see the lifecycle plugin, which sets it on the others.
  reply.header('x-request-id', request.id)
  reply.code(failure.statusCode)
  // Messages quote the request: credentials and chat framing in it are not echoed.
  failure = { ...failure, message: clipText(request.server.gateway.errorContent.text(failure.message), MAX_MESSAGE_CHARS) }
  if (request.routeOptions.config?.envelope) return reply.send(envelopeOf(request, failure))
  if (request.routeOptions.config?.jsonRpc) {
    // -32000 is the implementation-defined server error MCP's own transports answer with; the
    // gateway's code travels in data for clients that branch on it.
    const { code, statusCode, message } = failure
    return reply.send({ jsonrpc: '2.0', id: null, error: { code: -32000, message, data: { code, statusCode } } })
  }
  return reply.send({
    statusCode: failure.statusCode,
    code: failure.code,
    error: STATUS_CODES[failure.statusCode] ?? 'Error',
    message: failure.message
  })
}

export default fp<{ bodyLimit: number }>(async function errorHandling (app, options) {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const failure = classify(err, request, options.bodyLimit)
    if (failure.statusCode >= 500) request.log.error({ err }, 'unexpected fault')
    else request.log.info({ code: failure.code, reason: err.message }, 'request refused')
    return sendRefusal(request, reply, failure)
  })
  app.setNotFoundHandler((request, reply) => sendRefusal(request, reply,
    refusal(NotFoundError, `no route ${request.method} ${request.url.split('?')[0]}`)))
}, { name: 'error-handling' })
