// Tracing over OTLP/HTTP: spans are batched (BatchSpanProcessor: exported every few seconds or per
// 512, off the request path) and POSTed to the configured endpoint; closing the gateway flushes
// what is left. A failing receiver never fails a call; it is logged, at most once a minute.
import { ExportResultCode, type ExportResult } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace'
import type { Logger } from 'pino'
import { createOtelTracer } from './otel-tracer.ts'
import type { TracingConfig } from './start.ts'
import type { Tracer } from './tracer.ts'

const FAILURE_LOG_INTERVAL_MS = 60_000

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
  const exporter = new LoggedExporter(new OTLPTraceExporter({ url, headers: { ...tracing.headers } }), logger, url)
  return createOtelTracer({
    serviceName: tracing.serviceName,
    sampler: tracing.sampler,
    samplerArg: tracing.samplerArg,
    processor: new BatchSpanProcessor({ exporter })
  })
}
