// Tracing over OTLP/HTTP: spans are batched (BatchSpanProcessor: exported every tracing.batch
// scheduleDelayMs or per maxExportBatchSize, off the request path) and POSTed to the configured endpoint; closing the gateway flushes
// what is left. A failing receiver never fails a call; it is logged, at most once a minute.
import { ExportResultCode, type ExportResult } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace'
import type { Logger } from 'pino'
import { withTimeout } from '../shared/timers.ts'
import { createOtelTracer } from './otel-tracer.ts'
import { exporterOptions, onceAMinute } from './otlp-exporter-options.ts'
import type { TracingConfig } from './settings.ts'
import type { Tracer } from './tracer.ts'

/**
 * The last export at shutdown waits at most this long for a slow or absent receiver (the
 * exporter retries until its own timeout), then the spans are dropped: a close must end.
 */
const SHUTDOWN_EXPORT_MS = 5_000

/** The exporter, with its failures written to the gateway's log (the SDK's own diagnostics are silent by default). */
class LoggedExporter implements SpanExporter {
  readonly #inner: SpanExporter
  readonly #warn: (count: number, err: Error | undefined) => void

  constructor (inner: SpanExporter, logger: Logger, url: string) {
    this.#inner = inner
    let last: { count: number, err: Error | undefined } = { count: 0, err: undefined }
    const warn = onceAMinute(() => {
      logger.warn({ url, spans: last.count, err: last.err?.message }, 'tracing: spans could not be exported (the next failures within a minute are not logged)')
    })
    this.#warn = (count, err) => {
      last = { count, err }
      warn()
    }
  }

  export (spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.#inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) this.#warn(spans.length, result.error)
      done(result)
    })
  }

  async shutdown (): Promise<void> { await this.#inner.shutdown() }

  async forceFlush (): Promise<void> { await this.#inner.forceFlush?.() }
}

export function createOtlpTracer (tracing: TracingConfig, url: string, logger: Logger): Tracer {
  const otlp = new OTLPTraceExporter(exporterOptions(tracing, url))
  const exporter = new LoggedExporter(otlp, logger, url)
  const { batch } = tracing
  const tracer = createOtelTracer({
    serviceName: tracing.serviceName,
    resourceAttributes: tracing.resourceAttributes,
    sampler: tracing.sampler,
    samplerArg: tracing.samplerArg,
    // Set here, not left to the SDK: it reads no OTEL_BSP_* variable itself, and the gateway's
    // configuration (file, then environment) is where an operator sets them.
    processor: new BatchSpanProcessor({
      exporter,
      scheduledDelayMillis: batch.scheduleDelayMs,
      exportTimeoutMillis: batch.exportTimeoutMs,
      maxQueueSize: batch.maxQueueSize,
      maxExportBatchSize: Math.min(batch.maxExportBatchSize, batch.maxQueueSize)
    })
  })
  return {
    startRequest: tracer.startRequest.bind(tracer),
    parentFrom: tracer.parentFrom.bind(tracer),
    startDispatch: tracer.startDispatch.bind(tracer),
    // A receiver that is down must neither fail the gateway's close nor hold it past the bound.
    shutdown: async () => {
      const settled = tracer.shutdown().then(() => true, (err: unknown) => {
        logger.warn({ url, err: (err as Error)?.message }, 'tracing: the last spans could not be exported at shutdown')
        return true
      })
      const waitedMs = Math.min(SHUTDOWN_EXPORT_MS, tracing.timeoutMs + 1_000)
      const done = await withTimeout(settled, waitedMs, () => false, { unref: true })
      if (!done) logger.warn({ url, waitedMs }, 'tracing: the receiver did not take the last spans in time; they are dropped')
    }
  }
}
