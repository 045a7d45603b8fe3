// Starts tracing when the configuration asks for it, and only then loads OpenTelemetry: a gateway
// without an OTLP endpoint never imports the SDK or the exporter (test/lazy-loading.test.ts).
import type { Logger } from 'pino'
import type { TracingConfig } from './settings.ts'
import type { Tracer } from './tracer.ts'

export type { TracingConfig }

/**
 * Where spans are POSTed: the traces endpoint as given, else `/v1/traces` under the base endpoint
 * (as the OTLP specification has exporters do); undefined when neither is set or tracing is disabled.
 */
export function tracesUrlOf (tracing: TracingConfig): string | undefined {
  if (tracing.disabled || tracing.exporter === 'none') return undefined
  if (tracing.tracesEndpoint !== undefined) return tracing.tracesEndpoint
  if (tracing.endpoint === undefined) return undefined
  return `${tracing.endpoint.replace(/\/+$/, '')}/v1/traces`
}

/** The OTLP-exporting tracer of this configuration, or undefined: tracing is off. */
export async function startTracing (tracing: TracingConfig, logger: Logger): Promise<Tracer | undefined> {
  const url = tracesUrlOf(tracing)
  if (url === undefined) return undefined
  const { createOtlpTracer } = await import('./otlp.ts')
  logger.info({ url, serviceName: tracing.serviceName, sampler: tracing.sampler, encoding: 'json', compression: tracing.compression, scheduleDelayMs: tracing.batch.scheduleDelayMs }, 'tracing: spans exported over OTLP/HTTP')
  return createOtlpTracer(tracing, url, logger)
}
