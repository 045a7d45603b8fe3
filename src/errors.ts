// The one registry of gateway error codes. Every GW_ERR_* is created here with its HTTP status,
// so the dispatch core and the HTTP layer speak the same codes and none is ever reused.
import createError from '@fastify/error'

export const ToolNotFoundError = createError('GW_ERR_TOOL_NOT_FOUND', 'Unknown tool: %s', 404)
export const InvalidArgumentsError = createError('GW_ERR_INVALID_ARGUMENTS', '%s', 400)
export const UnauthorizedError = createError('GW_ERR_UNAUTHORIZED', '%s', 401)
export const BlockedError = createError('GW_ERR_BLOCKED', '%s', 403)
export const ToolFailedError = createError('GW_ERR_TOOL_FAILED', '%s', 200)
export const ToolUnavailableError = createError('GW_ERR_TOOL_UNAVAILABLE', '%s', 503)
export const TimeoutError = createError('GW_ERR_TIMEOUT', '%s', 504)
// 499 is the de-facto status for "client closed request"; nobody is left to read it.
export const CancelledError = createError('GW_ERR_CANCELLED', '%s', 499)
export const OverloadedError = createError('GW_ERR_OVERLOADED', '%s', 503)
export const RateLimitedError = createError('GW_ERR_RATE_LIMITED', '%s', 429)
export const BodyTooLargeError = createError('GW_ERR_BODY_TOO_LARGE', '%s', 413)
export const UnsupportedMediaTypeError = createError('GW_ERR_UNSUPPORTED_MEDIA_TYPE', '%s', 415)
export const BadRequestError = createError('GW_ERR_BAD_REQUEST', '%s', 400)
export const UnknownToolsetError = createError('GW_ERR_UNKNOWN_TOOLSET', '%s', 400)
export const NotFoundError = createError('GW_ERR_NOT_FOUND', '%s', 404)
export const InternalError = createError('GW_ERR_INTERNAL', '%s', 500)

// Registration problems are programming or configuration errors, raised at start-up, never over HTTP.
export const InvalidToolError = createError('GW_ERR_INVALID_TOOL', '%s', 500)
export const ToolCollisionError = createError('GW_ERR_TOOL_COLLISION', '%s', 500)
// A configuration value that cannot work; start-up stops with this message.
export const InvalidConfigError = createError('GW_ERR_INVALID_CONFIG', '%s', 500)
