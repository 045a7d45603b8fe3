// What every OTLP/HTTP exporter of the gateway is built with (spans: otlp.ts; the audit trail's log
// records: src/audit/otlp-logs.ts): the receiver's URL and the tracing settings' headers, timeout
// and compression, and the one-a-minute warning a failing receiver gets. Loaded only with them.
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base'
import type { TracingConfig } from './settings.ts'

const FAILURE_LOG_INTERVAL_MS = 60_000

export function exporterOptions (tracing: TracingConfig, url: string): { url: string, headers: Record<string, string>, timeoutMillis: number, compression: CompressionAlgorithm } {
  return {
    url,
    headers: { ...tracing.headers },
    timeoutMillis: tracing.timeoutMs,
    compression: tracing.compression === 'gzip' ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE
  }
}

/** Calls `warn` at most once a minute: a receiver that is down fails every export. */
export function onceAMinute (warn: () => void): () => void {
  let lastLogged = -Infinity
  return () => {
    const now = Date.now()
    if (now - lastLogged < FAILURE_LOG_INTERVAL_MS) return
    lastLogged = now
    warn()
  }
}
