// Tracing over OTLP/HTTP: spans are batched (BatchSpanProcessor: exported every tracing.batch
// scheduleDelayMs or per maxExportBatchSize, off the request path) and POSTed to the configured endpoint; closing the gateway flushes
// what is left. A failing receiver never fails a call; it is logged, at most once a minute.
import { ExportResultCode, type ExportResult } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base'
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace'
import type { Logger } from 'pino'
import { withTimeout } from '../shared/timers.ts'
import { createOtelTracer } from './otel-tracer.ts'
import type { TracingConfig } from './settings.ts'
import type { Tracer } from './tracer.ts'

const FAILURE_LOG_INTERVAL_MS = 60_000
/**
 * The last export at shutdown waits at most this long for a slow or absent receiver (the
 * exporter retries until its own timeout), then the spans are dropped: a close must end.
 */
const SHUTDOWN_EXPORT_MS = 5_000

/** The exporter, with its failures written to the gateway's log (the SDK's own diagnostics are silent by default). */
class LoggedExporter implements SpanExporter {
  readonly #inner: SpanExporter
  readonly #logger: Logger
  readonly #url: string
  #lastLogged = -Infinity

  constructor (inner: SpanExporter, logger: Logger, url: string) {
    this.#inner = inner
    this.#logger = logger
    this.#url = url
  }

  export (spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.#inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) this.#failed(spans.length, result.error)
      done(result)
    })
  }

  async shutdown (): Promise<void> { await this.#inner.shutdown() }

  async forceFlush (): Promise<void> { await this.#inner.forceFlush?.() }

  #failed (count: number, err: Error | undefined): void {
    const now = Date.now()
    if (now - this.#lastLogged < FAILURE_LOG_INTERVAL_MS) return
    this.#lastLogged = now
    this.#logger.warn({ url: this.#url, spans: count, err: err?.message }, 'tracing: spans could not be exported (the next failures within a minute are not logged)')
  }
}

export function createOtlpTracer (tracing: TracingConfig, url: string, logger: Logger): Tracer {
  const otlp = new OTLPTraceExporter({
    url,
    headers: { ...tracing.headers },
    timeoutMillis: tracing.timeoutMs,
    compression: tracing.compression === 'gzip' ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE
  })
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
