// POST /dispatch/:name with `Accept: text/event-stream`: the call's progress as it comes
// (`event: progress`), then its envelope as the last event (`event: result`), as Server-Sent Events.
// A comment goes out whenever nothing else has for calls.keepAliveMs, so that a proxy that closes
// idle connections keeps a long call's. The stream is the call's connection: a client that goes
// away cancels the call, unless it carries an Idempotency-Key (then it runs on, and a retry gets
// its result).
import { PassThrough } from 'node:stream'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import type { ToolProgress } from '../registry/types.ts'
import type { Answer } from '../idempotency/idempotent-calls.ts'
import { refusalEnvelope } from './error-handler.ts'
import { runOnce } from './idempotency.ts'
import { numericHeader } from './query.ts'

/** Whether the client asked for an event stream: it names text/event-stream and not JSON (a client taking both gets JSON). */
export function wantsEventStream (accept: string): boolean {
  return accept.includes('text/event-stream') && !accept.includes('application/json')
}

function event (name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`
}

/**
 * Answers `run`'s call as an event stream: `run(onProgress, detached)` runs it, handing its
 * progress reports to `onProgress`. The per-call headers are read first: a bad one is a plain 400.
 */
export async function streamCall (request: FastifyRequest, reply: FastifyReply, route: string, run: (onProgress: (update: ToolProgress) => void, detached: boolean) => Promise<Answer>): Promise<FastifyReply> {
  numericHeader(request.headers, 'x-tool-timeout-ms')
  numericHeader(request.headers, 'x-max-result-chars')
  const stream = new PassThrough()
  reply
    .header('cache-control', 'no-cache, no-transform')
    .header('x-accel-buffering', 'no')
    .type('text/event-stream; charset=utf-8')
    .send(stream)
  const write = (text: string): void => {
    if (stream.writable) stream.write(text)
    keepAlive.refresh()
  }
  const keepAlive = setTimeout(function keepAlive () { write(': keep-alive\n\n') }, request.server.gateway.config.calls.keepAliveMs)
  keepAlive.unref()
  stream.once('close', () => { clearTimeout(keepAlive) })
  // The headers go now, not with the first event: the client (and any proxy) knows the call is on.
  write(': the call runs; progress events follow, the result last\n\n')
  try {
    const answer = await runOnce(request, route, async (detached) => await run((update) => { write(event('progress', update)) }, detached))
    write(event('result', answer.payload))
  } catch (err) {
    write(event('result', refusalEnvelope(request, err as FastifyError).outcome))
  } finally {
    clearTimeout(keepAlive)
    stream.end()
  }
  return reply
}
