// The gateway's tools for one MCP client over a pair of streams (stdin/stdout when a desktop client
// launches `tool-gateway --stdio`). The caller is the local user who started the process: no key
// is presented, so the scope is every tool, narrowed only by the toolset selection given on the
// command line. The protocol server is the one /mcp uses, so listing, calls and errors match. The
// SDK's serveStdio tells the revisions apart on the first message: `server/discover` or a request
// with the 2026-07-28 envelope pins the connection to that revision, `initialize` to a 2025 one.
import { once } from 'node:events'
import type { Readable, Writable } from 'node:stream'
import type { Server } from '@modelcontextprotocol/server'
import { StdioServerTransport, serveStdio as serveSdkStdio } from '@modelcontextprotocol/server/stdio'
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { selectionCacheKey, type Caller } from '../access/caller.ts'
import { KeyScope } from '../access/key-scope.ts'
import { Cancellation } from '../dispatch/call/cancellation.ts'
import { onToolsChanged } from './list-changed.ts'
import { cacheHintsFor } from './modern-revision.ts'
import { createProtocolServer } from './protocol-server.ts'
import { RevisionGuard } from './stdio-revision-guard.ts'

/** Handed to handlers as ctx.principal, and in the logs: the call came from the local stdio client. */
export const STDIO_PRINCIPAL = 'stdio'

export interface StdioOptions {
  input: Readable
  output: Writable
  /** `--toolsets`: serve only these. */
  toolsets?: readonly string[]
  /** `--disabled`: leave these out (wins over toolsets). */
  disabled?: readonly string[]
}

export interface StdioConnection {
  /** Settles when the client closed its end (end of input) or `close()` ran. */
  readonly closed: Promise<void>
  close: () => Promise<void>
}

/** The caller of every message on the connection; throws UnknownToolsetError for a bad selection. */
function stdioCaller (app: FastifyInstance, options: StdioOptions, cancellation: Cancellation): Caller {
  const { gateway } = app
  const scope = new KeyScope(gateway, undefined)
  const { toolsets, disabled } = options
  // Checked once at start: a typo in the client's config is told now, not as an error on every list.
  scope.select(toolsets, disabled)
  return {
    scope,
    principal: STDIO_PRINCIPAL,
    logger: app.log.child({ transport: 'stdio' }) as Logger,
    selection: { toolsets, disabled, cacheKey: selectionCacheKey(scope, toolsets, disabled) },
    cancellation
  }
}

export async function serveStdio (app: FastifyInstance, options: StdioOptions): Promise<StdioConnection> {
  const { gateway } = app
  // Shutdown giving up on the calls still running cancels them, as it does an HTTP connection's.
  const cancellation = new Cancellation()
  const caller = stdioCaller(app, options, cancellation)
  const onShutdown = (): void => { cancellation.cancel(gateway.shutdownSignal.reason) }
  gateway.shutdownSignal.addEventListener('abort', onShutdown, { once: true })

  // One local client sees every answer: nothing in them is another caller's.
  const hints = cacheHintsFor(gateway.config.availability.ttlMs, false)
  // The instance serving the connection: the SDK makes one for the first message (and a second
  // when a client that probed with server/discover falls back to initialize); the last one serves.
  let serving: Server | undefined
  const factory = (): Server => {
    serving = createProtocolServer(app, () => caller, hints)
    return serving
  }
  const toolsChanged = onToolsChanged(gateway.registry, () => {
    // A 2025 client gets it unasked; a 2026-07-28 one only on a subscriptions/listen that asked.
    serving?.sendToolListChanged().catch((err: unknown) => { caller.logger.debug({ err }, 'tools/list_changed not delivered') })
  })
  const closed = Promise.withResolvers<void>()
  const transport = new RevisionGuard(new StdioServerTransport(options.input, options.output))
  // End of input closes the transport; the SDK then aborts the requests still running (their
  // calls are cancelled, a terminal command killed): nobody is left to read their answers.
  const inputEnded = Promise.race([once(options.input, 'end'), once(options.input, 'close')]).then(() => {}, () => {})
  const connection = serveSdkStdio(factory, {
    transport,
    onerror: (err) => { caller.logger.warn({ err }, 'MCP stdio: message not handled') }
  })
  let closing: Promise<void> | undefined
  const close = (): Promise<void> => {
    closing ??= connection.close().finally(() => {
      toolsChanged.stop()
      gateway.shutdownSignal.removeEventListener('abort', onShutdown)
      closed.resolve()
    })
    return closing
  }
  inputEnded.then(close, () => {})
  caller.logger.info({ toolsets: options.toolsets, disabled: options.disabled }, 'serving MCP over stdio')
  return { closed: closed.promise, close }
}
