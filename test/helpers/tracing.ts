// A real OpenTelemetry tracer whose spans stay in memory, for tests to read: the gateway's own
// OTel implementation over the SDK's InMemorySpanExporter (a SimpleSpanProcessor: each span is
// there as soon as it ends).
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace'
import { createOtelTracer, type OtelTracerOptions } from '../../src/tracing/otel-tracer.ts'
import type { Tracer } from '../../src/tracing/tracer.ts'

export interface MemoryTracer {
  tracer: Tracer
  /** The spans ended so far, in the order they ended. */
  spans: () => ReadableSpan[]
  /** The one ended span of that name; fails the test when there is not exactly one. */
  only: (name: string) => ReadableSpan
}

export function memoryTracer (options: Omit<OtelTracerOptions, 'processor'> = {}): MemoryTracer {
  const exporter = new InMemorySpanExporter()
  const tracer = createOtelTracer({ ...options, processor: new SimpleSpanProcessor({ exporter }) })
  const spans = (): ReadableSpan[] => exporter.getFinishedSpans()
  const only = (name: string): ReadableSpan => {
    const named = spans().filter((span) => span.name === name)
    if (named.length !== 1) throw new Error(`expected one span named "${name}", got ${named.length} among ${spans().map((s) => s.name).join(', ')}`)
    return named[0]
  }
  return { tracer, spans, only }
}

/** Milliseconds of an OTel high-resolution time ([seconds, nanoseconds]). */
export function hrMs ([seconds, nanos]: [number, number]): number {
  return seconds * 1000 + nanos / 1e6
}

/** A valid W3C traceparent from a caller, sampled. */
export const CALLER_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
export const CALLER_SPAN_ID = '00f067aa0ba902b7'
export const CALLER_TRACEPARENT = `00-${CALLER_TRACE_ID}-${CALLER_SPAN_ID}-01`
