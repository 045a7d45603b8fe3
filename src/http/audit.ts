// The audit trail at the edge: `app.audit.record(event)` for every feature that records (calls,
// approvals, pins, admin actions, refused authentications), built from audit.* (src/audit). With
// audit.arguments a call's arguments are written redacted as error text is: values under secret
// argument names, credential shapes, the secret environment variables' values.
import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { AuditCommon, AuthRefusedAuditEvent, CallAuditEvent, CallVia } from '../audit/event.ts'
import type { ArgumentsRedactor } from '../audit/line.ts'
import { AuditTrail, NO_AUDIT, type Audit } from '../audit/trail.ts'
import type { GatewayConfig } from '../config/schema.ts'
import type { DispatchOutcome } from '../dispatch/call/outcome.ts'
import type { DispatchRequest } from '../dispatch/call/pipeline.ts'
import { REDACTED, redactText, secretSettingsOf } from '../dispatch/call/redact.ts'
import { isRecord } from '../shared/objects.ts'
import { InvalidConfigError } from '../shared/errors.ts'
import type { AuditLogSink } from '../audit/otlp-logs.ts'
import type { Logger } from 'pino'

declare module 'fastify' {
  interface FastifyInstance {
    audit: Audit
  }
}

export type { Audit }

/** The arguments with secret names' values and secrets in strings replaced by [redacted]. */
export function argumentsRedactor (config: GatewayConfig, env: NodeJS.ProcessEnv): ArgumentsRedactor {
  const names = new Set(config.logging.secretArguments)
  const secrets = secretSettingsOf(config, env).secretValues ?? []
  const redact = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') return redactText(value, secrets)
    if (depth > 32) return REDACTED
    if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1))
    if (!isRecord(value)) return value
    const copy: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) copy[key] = names.has(key) ? REDACTED : redact(item, depth + 1)
    return copy
  }
  return (args) => {
    // A model's JSON string is read as the object it encodes, so its secret names are found too.
    if (typeof args === 'string') {
      try {
        return redact(JSON.parse(args), 0)
      } catch {
        return redactText(args, secrets)
      }
    }
    return redact(args, 0)
  }
}

/** Who and which request an event of `request` belongs to, for the events features record. */
export function auditContext (request: FastifyRequest): AuditCommon {
  return { principal: request.principal?.name, requestId: request.id, traceId: traceIdOf(request) }
}

/** The request's trace: its span's when tracing, else the one the caller's traceparent names. */
function traceIdOf (request: FastifyRequest): string | undefined {
  const span = request.traceSpan
  const tracer = request.server.tracer
  if (span !== undefined && tracer?.traceIdOf !== undefined) return tracer.traceIdOf(span.context)
  const traceparent = request.headers.traceparent
  // version-traceid-parentid-flags
  return typeof traceparent === 'string' ? /^[\da-f]{2}-([\da-f]{32})-/.exec(traceparent)?.[1] : undefined
}

/** The audit event of one call that ended (no outcome: the dispatcher failed, which it never should). */
export function callAuditEvent (call: DispatchRequest, via: CallVia, context: AuditCommon, outcome: DispatchOutcome | undefined): CallAuditEvent {
  return {
    type: 'call',
    via,
    tool: call.name,
    callId: outcome?.callId ?? call.callId,
    sessionId: call.sessionId,
    status: outcome?.status ?? 'error',
    durationMs: outcome?.durationMs ?? 0,
    args: call.args,
    resultBytes: outcome === undefined ? undefined : Buffer.byteLength(outcome.content),
    ...context
  }
}

export function createAudit (config: GatewayConfig, env: NodeJS.ProcessEnv, onWriteError: (err: unknown) => void, sink?: AuditLogSink): Audit {
  const { audit } = config
  if (!audit.enabled) return NO_AUDIT
  return new AuditTrail({
    sink,
    file: audit.file === undefined ? undefined : { path: audit.file, maxBytes: audit.maxFileBytes, keep: audit.keepFiles },
    stdout: audit.stdout ? process.stdout : undefined,
    ringSize: audit.memoryLines,
    redact: audit.arguments ? argumentsRedactor(config, env) : undefined,
    onWriteError
  })
}

/** Why authentication refused a request, by the code of the error auth.ts answered; others are no refusal. */
const REFUSALS: ReadonlyMap<string, string> = new Map([
  ['GW_ERR_UNAUTHORIZED', 'unauthorized'],
  ['GW_ERR_INSUFFICIENT_SCOPE', 'insufficient_scope'],
  ['GW_ERR_OPERATOR_REQUIRED', 'operator_required'],
  ['GW_ERR_IDENTITY_PROVIDER_UNAVAILABLE', 'identity_provider_unavailable'],
  // Too many failed authentications from the address (a per-key rate limit has a principal).
  ['GW_ERR_RATE_LIMITED', 'too_many_failures']
])

/** The event of a request authentication refused; undefined for any other error. */
export function refusalEvent (request: FastifyRequest, error: { code?: string, statusCode?: number }): AuthRefusedAuditEvent | undefined {
  // A request that got a principal was authenticated: what failed after is no refusal of its credential.
  if (request.principal !== undefined) return undefined
  const reason = error.code === undefined ? undefined : REFUSALS.get(error.code)
  if (reason === undefined) return undefined
  const { requestId, traceId } = auditContext(request)
  const path = request.url.split('?', 1)[0]
  const credential = request.headers.authorization === undefined ? 'none' : 'presented'
  return { type: 'auth_refused', reason, status: error.statusCode ?? 401, ip: request.ip, method: request.method, path, requestId, traceId, detail: { credential } }
}

/** The OpenTelemetry log records of audit.otlp, loaded only then; refuses to start without a receiver. */
async function otlpSink (config: GatewayConfig, logger: Logger): Promise<AuditLogSink | undefined> {
  const { audit, tracing } = config
  if (!audit.enabled || !audit.otlp) return undefined
  const { createOtlpLogSink, logsUrlOf } = await import('../audit/otlp-logs.ts')
  const url = logsUrlOf(tracing, audit.otlpEndpoint)
  if (url === undefined) {
    throw new InvalidConfigError('audit.otlp (AUDIT_OTLP) sends the audit trail as OpenTelemetry log records, and needs a receiver: set OTEL_EXPORTER_OTLP_LOGS_ENDPOINT (audit.otlpEndpoint) or OTEL_EXPORTER_OTLP_ENDPOINT (tracing.endpoint)')
  }
  logger.info({ url }, 'audit: lines exported as OpenTelemetry log records over OTLP/HTTP')
  return createOtlpLogSink(tracing, url, logger)
}

export default fp<{ config: GatewayConfig, env?: NodeJS.ProcessEnv }>(async function audit (app, options) {
  const sink = await otlpSink(options.config, app.log as unknown as Logger)
  const trail = createAudit(options.config, options.env ?? process.env, (err) => {
    app.log.error({ err }, 'the audit file could not be written; lines are kept in memory only until it can')
  }, sink)
  app.decorate('audit', trail)
  if (trail.enabled) {
    // Refusals are read from the error answered, so that auth.ts stays one concern; an error is rare.
    app.addHook('onError', (request, _reply, error, done) => {
      const event = refusalEvent(request, error as { code?: string, statusCode?: number })
      if (event !== undefined) trail.record(event)
      done()
    })
  }
  // Last lines of a shutdown (the calls drained before it) reach the file.
  app.addHook('onClose', async () => {
    await trail.flush()
    await sink?.shutdown()
  })
}, { name: 'audit' })
