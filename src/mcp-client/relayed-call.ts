// The handler of one MCP server tool: the call goes to the server, its progress comes back when the
// caller listens, and a call the server refused because it forgot the session is sent once more on
// a new one. That refusal (HTTP 404 to a request carrying Mcp-Session-Id: the server restarted, or
// closed the session as idle) means the request never ran there, so sending it again is safe; the
// MCP specification has the client open a new session then, which the connection does after its
// first back-off (half a second). A server set to receive each caller's identity gets, on each
// call, a token the identity provider issued for that caller and that server (token exchange).
// What the server asks on the way (questions for the caller, a task to follow) is met in
// tool-call-rounds.ts; a 2025-era server's own requests reach this call's caller through
// call-attribution.ts, and when the caller could not answer one, the call fails with the error
// naming what was asked, whatever the server made of the refusal.
import { SdkHttpError } from '@modelcontextprotocol/client'
import { McpConnectionLostError, McpUnavailableError } from '../shared/errors.ts'
import type { MediaResult, ToolContext, ToolHandler, ToolProgress } from '../registry/types.ts'
import type { CallAsker } from './call-attribution.ts'
import type { CallOptions } from './call-options.ts'
import type { McpConnection, McpConnectionState } from './connection.ts'
import type { MappedResult } from './result.ts'
import { callToCompletion } from './tool-call-rounds.ts'
import type { CallerSide } from './upstream-questions.ts'

/**
 * Whether `err` is the server's refusal of a session it does not know: the request did not run.
 * Only for a call that carried a session: a 404 without one says the endpoint itself is gone.
 */
export function isSessionRefusal (err: unknown, sessionId: string | undefined): boolean {
  return sessionId !== undefined && err instanceof McpConnectionLostError && err.cause instanceof SdkHttpError && err.cause.status === 404
}

/**
 * Resolves true once `connection` is connected again, false when it will not be soon: the call
 * was cancelled, the connection closed or its circuit opened, or no new session came within the
 * connection's own connect timeout (the bound readiness waits too).
 */
export function reconnected (connection: McpConnection, signal: AbortSignal): Promise<boolean> {
  if (connection.state === 'connected') return Promise.resolve(true)
  return new Promise((resolve) => {
    const done = (value: boolean): void => {
      clearTimeout(timer)
      connection.off('state', onState)
      signal.removeEventListener('abort', onAbort)
      resolve(value)
    }
    const onState = (state: McpConnectionState): void => {
      if (state === 'connected') done(true)
      else if (state !== 'reconnecting' && state !== 'connecting') done(false)
    }
    const onAbort = (): void => { done(false) }
    const timer = setTimeout(() => { done(false) }, connection.connectTimeoutMs)
    connection.on('state', onState)
    signal.addEventListener('abort', onAbort, { once: true })
    if (signal.aborted) done(false)
  })
}

/** mcpServers.<name>.auth.tokenExchange: calls carry the caller's own identity, addressed to the server. */
export interface TokenExchangeSetting {
  audience: string
  scope?: string
}

/** The Authorization of one call on behalf of its caller; throws (the call fails) when the caller is no signed-in user. */
async function onBehalfOf (server: string, exchange: TokenExchangeSetting, ctx: ToolContext): Promise<string> {
  if (ctx.identity === undefined) {
    throw new McpUnavailableError(server, `MCP server "${server}" is called with each caller's own identity (mcpServers.${server}.auth.tokenExchange): call it signed in with an access token of the identity provider; an API key carries no user to pass on`)
  }
  return `Bearer ${await ctx.identity.exchange(exchange.audience, exchange.scope)}`
}

export function relayedCall (connection: McpConnection, raw: string, exchange?: TokenExchangeSetting): ToolHandler {
  return async (args, ctx) => {
    const authorization = exchange === undefined ? undefined : await onBehalfOf(connection.server, exchange, ctx)
    const caller: CallerSide = {
      signal: ctx.signal,
      logger: ctx.logger,
      reportProgress: ctx.reportProgress === undefined ? undefined : (update) => ctx.reportProgress?.(update),
      ask: ctx.ask === undefined ? undefined : async (requests) => await ctx.ask!(requests)
    }
    let unanswered: Error | undefined
    const asker: CallAsker = { tool: raw, ask: caller.ask, unanswered: (err) => { unanswered ??= err } }
    const options: CallOptions = { signal: ctx.signal, onProgress: progressRelay(ctx), traceHeaders: ctx.traceHeaders, authorization, asker }
    const attempt = async (): Promise<string | MediaResult> => {
      try {
        const mapped = await callToCompletion(connection, raw, args, options, caller)
        // The server failed after its question went unanswered: the reason is the question.
        if (unanswered !== undefined && mapped.isError) throw unanswered
        return handlerAnswer(mapped)
      } catch (err) {
        throw unanswered !== undefined && !ctx.signal.aborted ? unanswered : err
      }
    }
    // Read before the call: a refusal ends the link, and its session with it.
    const sessionId = connection.sessionId
    try {
      return await attempt()
    } catch (err) {
      if (!isSessionRefusal(err, sessionId) || !await reconnected(connection, ctx.signal)) throw err
      ctx.logger.info({ tool: raw }, 'MCP server forgot the session; call sent again on a new one')
      return await attempt()
    }
  }
}

/** The text alone, or the text with the images and audio the server returned. */
function handlerAnswer (mapped: MappedResult): string | MediaResult {
  return mapped.media === undefined ? mapped.content : { text: mapped.content, media: mapped.media }
}

/** Asked of the server only when the caller listens: a progress token makes it send reports. */
function progressRelay (ctx: ToolContext): ((update: ToolProgress) => void) | undefined {
  return ctx.progressWanted === true ? (update) => { ctx.reportProgress?.(update) } : undefined
}
