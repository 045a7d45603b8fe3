// The one registry of gateway error codes. Every GW_ERR_* is created here with its HTTP status, so
// the dispatch core and the HTTP layer speak the same codes and none is ever reused. Each class also
// carries its code and status as static fields (`ToolFailedError.code`), for tables that map to them
// without making an error.
import createError, { type FastifyErrorConstructor } from '@fastify/error'

type GatewayErrorClass<C extends string> = FastifyErrorConstructor<{ code: C }, [string?]> & {
  readonly code: C
  readonly statusCode: number
}

function define<C extends string> (code: C, statusCode: number, message = '%s'): GatewayErrorClass<C> {
  return Object.assign(createError<C, [string?]>(code, message, statusCode), { code, statusCode })
}

export const ToolNotFoundError = define('GW_ERR_TOOL_NOT_FOUND', 404, 'Unknown tool: %s')
export const InvalidArgumentsError = define('GW_ERR_INVALID_ARGUMENTS', 400)
export const UnauthorizedError = define('GW_ERR_UNAUTHORIZED', 401)
/** A valid access token whose scopes and claims grant no toolset (RFC 6750 insufficient_scope). */
export const InsufficientScopeError = define('GW_ERR_INSUFFICIENT_SCOPE', 403)
/** The identity provider could not be asked (metadata, keys, introspection) within its deadline. */
export const IdentityProviderUnavailableError = define('GW_ERR_IDENTITY_PROVIDER_UNAVAILABLE', 503)
export const BlockedError = define('GW_ERR_BLOCKED', 403)
// An admin route asked by a key limited to toolsets, or a token without auth.oauth.adminScope.
export const OperatorRequiredError = define('GW_ERR_OPERATOR_REQUIRED', 403)
// POST /admin/tools/:name/approve of a tool that is served as it is: there is nothing to approve.
export const ToolNotHeldError = define('GW_ERR_TOOL_NOT_HELD', 409)
// The pins of trusted tools could not be read or written (their file, or Redis): nothing is approved.
export const PinStoreUnavailableError = define('GW_ERR_PIN_STORE_UNAVAILABLE', 503)
/** A browser page's request to /mcp from an origin not in mcp.allowedOrigins (DNS rebinding). */
export const OriginNotAllowedError = define('GW_ERR_ORIGIN_NOT_ALLOWED', 403)
/** A request addressed to a host name the gateway does not answer to (DNS rebinding). */
export const HostNotAllowedError = define('GW_ERR_HOST_NOT_ALLOWED', 403)
export const ToolFailedError = define('GW_ERR_TOOL_FAILED', 200)
export const ToolUnavailableError = define('GW_ERR_TOOL_UNAVAILABLE', 503)
export const TimeoutError = define('GW_ERR_TIMEOUT', 504)
// 499 is the de-facto status for "client closed request"; nobody is left to read it.
export const CancelledError = define('GW_ERR_CANCELLED', 499)
export const OverloadedError = define('GW_ERR_OVERLOADED', 503)
export const RateLimitedError = define('GW_ERR_RATE_LIMITED', 429)
export const RequestTimeoutError = define('GW_ERR_REQUEST_TIMEOUT', 408)
export const BodyTooLargeError = define('GW_ERR_BODY_TOO_LARGE', 413)
export const UnsupportedMediaTypeError = define('GW_ERR_UNSUPPORTED_MEDIA_TYPE', 415)
export const BadRequestError = define('GW_ERR_BAD_REQUEST', 400)
export const NotFoundError = define('GW_ERR_NOT_FOUND', 404)
/** A kept result that is unknown, expired or another caller's: the three answer alike, so ids leak nothing. */
export const ResultNotFoundError = define('GW_ERR_RESULT_NOT_FOUND', 404, 'No result %s: it is unknown, has expired (results are kept for a limited time), or was made with another API key')
/** A detached call (Prefer: respond-async) that is unknown, whose outcome expired, or another caller's: the three answer alike. */
export const CallNotFoundError = define('GW_ERR_CALL_NOT_FOUND', 404, 'No call %s: it is unknown, its outcome has expired (outcomes are kept for a limited time, calls.ttlMs), or it was started with another API key')
/** An Idempotency-Key used before for a different request (another tool, other arguments or call headers). */
export const IdempotencyKeyReusedError = define('GW_ERR_IDEMPOTENCY_KEY_REUSED', 422)
export const InternalError = define('GW_ERR_INTERNAL', 500)
/** A tool's question (ctx.ask) that nobody answered within calls.answerTimeoutMs. */
export const InputTimeoutError = define('GW_ERR_INPUT_TIMEOUT', 504)
/** A call held until a person approves it (trust.approval): the envelope says pending_approval. */
export const ApprovalPendingError = define('GW_ERR_APPROVAL_PENDING', 202)
/** An approval that is unknown (or forgotten since it was decided or expired). */
export const ApprovalNotFoundError = define('GW_ERR_APPROVAL_NOT_FOUND', 404, 'No approval %s: it is unknown, or it was decided or expired long enough ago to be forgotten')
/** An approval that can no longer be decided: decided already, or expired; the message says which. */
export const ApprovalClosedError = define('GW_ERR_APPROVAL_CLOSED', 409)
/** A tool asked its caller a question (ctx.ask) that this caller cannot answer (declared no such capability). */
export const InputUnsupportedError = define('GW_ERR_INPUT_UNSUPPORTED', 200)

const UnknownToolsetBase = define('GW_ERR_UNKNOWN_TOOLSET', 400)
/** Toolset names that resolve to nothing; carries them and the names that would have been valid. */
export class UnknownToolsetError extends UnknownToolsetBase {
  readonly unknown: readonly string[]
  readonly valid: readonly string[]

  constructor (message: string, details: { unknown: readonly string[], valid: readonly string[] }) {
    super(message)
    this.unknown = details.unknown
    this.valid = details.valid
  }
}

// Registration problems are programming or configuration errors, raised at start-up, never over HTTP.
export const InvalidToolError = define('GW_ERR_INVALID_TOOL', 500)
export const ToolCollisionError = define('GW_ERR_TOOL_COLLISION', 500)
// A configuration value that cannot work; start-up stops with this message.
export const InvalidConfigError = define('GW_ERR_INVALID_CONFIG', 500)

const PluginLoadBase = define('GW_ERR_PLUGIN_LOAD', 500)
/** A configured plugin that could not be loaded (the gateway logs it and goes on without it). */
export class PluginLoadError extends PluginLoadBase {
  readonly plugin: string

  constructor (plugin: string, message: string, options?: { cause?: unknown }) {
    super(message)
    this.plugin = plugin
    if (options?.cause !== undefined) this.cause = options.cause
  }
}

// An MCP server that a tool call, or a resource or prompt request, could not get an answer from.
// Thrown inside tool handlers, so the model reads the message; the class says which failure it was.
function serverError<C extends string> (base: GatewayErrorClass<C>) {
  return class extends base {
    /** The MCP server's name from the config. */
    readonly server: string
    constructor (server: string, message: string, options?: { cause?: unknown }) {
      super(message)
      this.server = server
      if (options?.cause !== undefined) this.cause = options.cause
    }
  }
}

/** The server is not connected (connecting, reconnecting, circuit open, disabled, closed). */
export const McpUnavailableError = serverError(define('GW_ERR_MCP_UNAVAILABLE', 503))
/** The server did not answer within the deadline. */
export const McpTimeoutError = serverError(define('GW_ERR_MCP_TIMEOUT', 504))
/** The connection broke during the request. */
export const McpConnectionLostError = serverError(define('GW_ERR_MCP_CONNECTION_LOST', 502))
/** The server answered the request with an error. */
export const McpRequestFailedError = serverError(define('GW_ERR_MCP_REQUEST_FAILED', 502))

// The MCP client side's own failures, apart from a request's (above).
/** A server that cannot be started or spoken to as configured (a stdio cwd missing or not a folder, a pinned protocol it does not speak). */
export const McpStartFailedError = serverError(define('GW_ERR_MCP_START_FAILED', 503))
/** An answer of a server past the decoded-byte cap on one message (mcp.upstreamMaxMessageBytes). */
export const McpAnswerTooLargeError = serverError(define('GW_ERR_MCP_ANSWER_TOO_LARGE', 502))
/** An answer that breaks the protocol's bounds or rules (a tools/list that never ends, an answer to another request). */
export const McpInvalidAnswerError = define('GW_ERR_MCP_INVALID_ANSWER', 502)
/** The pinned MCP SDK lacks what the gateway relies on; raised at start, never to a caller. */
export const McpSdkMismatchError = define('GW_ERR_MCP_SDK_MISMATCH', 500)
