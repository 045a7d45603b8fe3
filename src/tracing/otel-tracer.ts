// The Tracer seam on the OpenTelemetry SDK: a server span per HTTP request continuing the caller's
// W3C trace context, and an `execute_tool` span per tool call (the GenAI semantic conventions),
// handed to whatever span processor the caller chose (OTLP export in otlp.ts, memory in tests).
// Nothing is registered globally: contexts are passed by hand, so several gateways in one process
// (tests) keep their spans apart and no AsyncLocalStorage runs on the request path.
import type { IncomingHttpHeaders } from 'node:http'
import {
  ROOT_CONTEXT, SpanKind, SpanStatusCode, defaultTextMapGetter, defaultTextMapSetter, trace,
  type Context, type Span
} from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { resourceFromAttributes } from '@opentelemetry/resources'
import {
  AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider,
  type Sampler, type SpanProcessor
} from '@opentelemetry/sdk-trace'
import { GATEWAY_IDENTITY } from '../shared/version.ts'
import type { TracingConfig } from './settings.ts'
import type { DispatchSpan, RequestSpan, SpanOutcome, TraceHeaders, TraceParent, Tracer } from './tracer.ts'

/** An error's description on a span is for operators, not a dump of the model's text. */
const MAX_STATUS_MESSAGE = 500

export interface OtelTracerOptions {
  serviceName?: string
  /** More attributes of the resource (OTEL_RESOURCE_ATTRIBUTES); the service's name and version win. */
  resourceAttributes?: Readonly<Record<string, string>>
  sampler?: TracingConfig['sampler']
  samplerArg?: number
  /** Where ended spans go: a BatchSpanProcessor over OTLP, or a SimpleSpanProcessor over memory in tests. */
  processor: SpanProcessor
}

export function samplerOf (name: TracingConfig['sampler'], ratio: number): Sampler {
  switch (name) {
    case 'always_on': return new AlwaysOnSampler()
    case 'always_off': return new AlwaysOffSampler()
    case 'traceidratio': return new TraceIdRatioBasedSampler(ratio)
    case 'parentbased_always_off': return new ParentBasedSampler({ root: new AlwaysOffSampler() })
    case 'parentbased_traceidratio': return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) })
    default: return new ParentBasedSampler({ root: new AlwaysOnSampler() })
  }
}

const asParent = (context: Context): TraceParent => context as unknown as TraceParent
const asContext = (parent: TraceParent | undefined): Context => parent === undefined ? ROOT_CONTEXT : parent as unknown as Context

class HttpRequestSpan implements RequestSpan {
  readonly context: TraceParent
  readonly #span: Span
  #ended = false

  constructor (span: Span, parent: Context) {
    this.#span = span
    this.context = asParent(trace.setSpan(parent, span))
  }

  end (statusCode: number): void {
    if (this.#ended) return
    this.#ended = true
    this.#span.setAttribute('http.response.status_code', statusCode)
    // Server spans: only a 5xx is the server's failure (HTTP semantic conventions); a 4xx is the caller's.
    if (statusCode >= 500) {
      this.#span.setAttribute('error.type', String(statusCode))
      this.#span.setStatus({ code: SpanStatusCode.ERROR })
    }
    this.#span.end()
  }

  abort (): void {
    if (this.#ended) return
    this.#ended = true
    this.#span.setAttribute('error.type', 'client_aborted')
    this.#span.setStatus({ code: SpanStatusCode.ERROR, message: 'the client went away before the answer' })
    this.#span.end()
  }
}

class ToolCallSpan implements DispatchSpan {
  readonly headers: TraceHeaders
  readonly #span: Span

  constructor (span: Span, headers: TraceHeaders) {
    this.#span = span
    this.headers = headers
  }

  end (outcome: SpanOutcome): void {
    const span = this.#span
    span.setAttributes({
      'tool_gateway.status': outcome.status,
      'tool_gateway.truncated': outcome.truncated,
      'tool_gateway.original_length': outcome.originalLength,
      'tool_gateway.duration_ms': outcome.durationMs
    })
    if (outcome.error !== undefined) {
      span.setAttribute('error.type', outcome.error.code)
      span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error.message.slice(0, MAX_STATUS_MESSAGE) })
    }
    span.end()
  }
}

class OtelTracer implements Tracer {
  readonly #provider: TracerProvider
  readonly #tracer
  readonly #propagator = new W3CTraceContextPropagator()

  constructor (options: OtelTracerOptions) {
    this.#provider = new TracerProvider({
      resource: resourceFromAttributes({
        'service.version': GATEWAY_IDENTITY.version,
        ...options.resourceAttributes,
        'service.name': options.serviceName ?? options.resourceAttributes?.['service.name'] ?? GATEWAY_IDENTITY.name
      }),
      sampler: samplerOf(options.sampler ?? 'parentbased_always_on', options.samplerArg ?? 1),
      spanProcessors: [options.processor]
    })
    this.#tracer = this.#provider.getTracer(GATEWAY_IDENTITY.name, GATEWAY_IDENTITY.version)
  }

  startRequest (method: string, route: string, path: string, headers: IncomingHttpHeaders): RequestSpan {
    const parent = this.#propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter)
    const span = this.#tracer.startSpan(route === '' ? method : `${method} ${route}`, {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': method, 'url.path': path, ...(route === '' ? {} : { 'http.route': route }) }
    }, parent)
    return new HttpRequestSpan(span, parent)
  }

  parentFrom (carrier: Readonly<Record<string, unknown>>): TraceParent | undefined {
    const context = this.#propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter)
    return trace.getSpanContext(context) === undefined ? undefined : asParent(context)
  }

  traceIdOf (parent: TraceParent): string | undefined {
    return trace.getSpanContext(asContext(parent))?.traceId
  }

  startDispatch (tool: string, callId: string, parent: TraceParent | undefined, principal?: string): DispatchSpan {
    // The GenAI semantic conventions' tool execution span: `execute_tool {gen_ai.tool.name}`.
    const span = this.#tracer.startSpan(`execute_tool ${tool}`, {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': tool,
        'gen_ai.tool.call.id': callId,
        'gen_ai.tool.type': 'function',
        ...(principal === undefined ? {} : { 'user.id': principal })
      }
    }, asContext(parent))
    // Injected even when the span is not sampled: downstream then knows not to record either.
    const headers: Record<string, string> = {}
    this.#propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, defaultTextMapSetter)
    return new ToolCallSpan(span, headers)
  }

  async shutdown (): Promise<void> {
    await this.#provider.shutdown()
  }
}

export function createOtelTracer (options: OtelTracerOptions): Tracer {
  return new OtelTracer(options)
}
