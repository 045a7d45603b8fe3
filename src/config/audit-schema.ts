// The schema of the audit trail (audit.*): where its lines go, how the file is rotated, whether
// argument values are written. Part of the gateway configuration (schema.ts).
import { Type, type Static } from 'typebox'

export const AuditSchema = Type.Object({
  enabled: Type.Boolean({ default: true, description: 'Record the audit trail: one JSON line per call, approval, pin approval, admin action and refused authentication (AUDIT_ENABLED). Off: nothing is recorded and GET /admin/audit answers no lines.' }),
  file: Type.Optional(Type.String({ minLength: 1, description: 'File the lines are appended to, rotated by size (AUDIT_FILE); unset: no file.' })),
  stdout: Type.Boolean({ default: false, description: 'Write the lines to standard output too, beside the log (AUDIT_STDOUT).' }),
  maxFileBytes: Type.Integer({ minimum: 1024, default: 100 * 1024 * 1024, description: 'Size past which the file is rotated: audit.log becomes audit.log.1, and so on (AUDIT_MAX_FILE_BYTES).' }),
  keepFiles: Type.Integer({ minimum: 0, maximum: 1000, default: 5, description: 'Rotated files kept beside the current one; older ones are deleted (AUDIT_KEEP_FILES).' }),
  otlp: Type.Boolean({ default: false, description: 'Send each line as an OpenTelemetry log record over OTLP/HTTP: to otlpEndpoint, else to /v1/logs under the tracing endpoint (OTEL_EXPORTER_OTLP_ENDPOINT), with the tracing headers, compression and resource (AUDIT_OTLP).' }),
  otlpEndpoint: Type.Optional(Type.String({ pattern: '^https?://', description: 'Full URL the log records are POSTed to (OTEL_EXPORTER_OTLP_LOGS_ENDPOINT).' })),
  arguments: Type.Boolean({ default: false, description: 'Write each call\'s arguments, redacted as errors are (secret argument names, credential shapes, secret environment values), beside their digest (AUDIT_ARGUMENTS). Off: the digest only.' }),
  memoryLines: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 10_000, description: 'Latest lines kept in memory for GET /admin/audit (AUDIT_MEMORY_LINES).' }),
  maxPageLines: Type.Integer({ minimum: 1, maximum: 10_000, default: 500, description: 'Most lines one GET /admin/audit answers.' })
}, { additionalProperties: false, default: {}, description: 'The audit trail (docs/security.md#audit-trail).' })

export type AuditConfig = Static<typeof AuditSchema>
