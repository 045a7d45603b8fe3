// The audit trail as OpenTelemetry log records, POSTed over OTLP/HTTP (JSON) to the receiver the
// traces go to (its /v1/logs) or to OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: each line is one record, its
// body the line itself, with the event's type as an attribute, batched off the request path
// (BatchLogRecordProcessor). Loaded only when audit.otlp asks for it (test/lazy-loading.test.ts).
// A receiver that is down never fails a call: its failures are logged, at most once a minute.
import { SeverityNumber } from '@opentelemetry/api'
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BatchLogRecordProcessor, LoggerProvider, type LogRecordExporter, type ReadableLogRecord } from '@opentelemetry/sdk-logs'
import type { Logger } from 'pino'
import { exporterOptions, onceAMinute } from '../tracing/otlp-exporter-options.ts'
import type { TracingConfig } from '../tracing/settings.ts'
import { GATEWAY_IDENTITY } from '../shared/version.ts'
import type { AuditLine } from './line.ts'

/** The last export at shutdown waits at most this long: a close must end. */
const SHUTDOWN_EXPORT_MS = 5_000

export interface AuditLogSink {
  write: (lines: readonly AuditLine[]) => void
  shutdown: () => Promise<void>
}

/** Where the records go: the logs endpoint as given, else /v1/logs under the OTLP base endpoint. */
export function logsUrlOf (tracing: TracingConfig, logsEndpoint: string | undefined): string | undefined {
  if (logsEndpoint !== undefined) return logsEndpoint
  if (tracing.endpoint === undefined) return undefined
  return `${tracing.endpoint.replace(/\/+$/, '')}/v1/logs`
}

/** The exporter, its failures written to the gateway's log. */
function loggedExporter (inner: LogRecordExporter, logger: Logger, url: string): LogRecordExporter {
  let failed = { records: 0, err: '' }
  const warn = onceAMinute(() => {
    logger.warn({ url, ...failed }, 'audit: log records could not be exported (the next failures within a minute are not logged)')
  })
  return {
    export (records: ReadableLogRecord[], done) {
      inner.export(records, (result) => {
        if (result.error !== undefined) {
          failed = { records: records.length, err: result.error.message }
          warn()
        }
        done(result)
      })
    },
    shutdown: async () => { await inner.shutdown() },
    forceFlush: async () => { await inner.forceFlush?.() }
  }
}

export function createOtlpLogSink (tracing: TracingConfig, url: string, logger: Logger): AuditLogSink {
  const exporter = new OTLPLogExporter(exporterOptions(tracing, url))
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({
      'service.version': GATEWAY_IDENTITY.version,
      ...tracing.resourceAttributes,
      'service.name': tracing.serviceName ?? tracing.resourceAttributes['service.name'] ?? GATEWAY_IDENTITY.name
    }),
    processors: [new BatchLogRecordProcessor({ exporter: loggedExporter(exporter, logger, url), scheduledDelayMillis: tracing.batch.scheduleDelayMs })]
  })
  const audit = provider.getLogger('tool-gateway.audit', GATEWAY_IDENTITY.version)
  return {
    write (lines) {
      for (const line of lines) {
        audit.emit({ timestamp: line.time, severityNumber: SeverityNumber.INFO, severityText: 'INFO', body: line.text, attributes: { 'audit.type': line.type } })
      }
    },
    shutdown: async () => {
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<void>((resolve) => { timer = setTimeout(resolve, SHUTDOWN_EXPORT_MS).unref() })
      await Promise.race([provider.shutdown().catch(() => {}), timeout])
      clearTimeout(timer)
    }
  }
}
