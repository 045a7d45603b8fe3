// The stdio reader of an MCP connection, in place of the SDK's. The SDK's reader caps what it holds
// (10 MiB) and, past the cap, throws: its transport then closes, the child is killed and every tool
// of the server is unavailable until it reconnects, for one answer that was too big. This one
// keeps the cap per message but refuses only that message: the rest of its line is skipped as it
// arrives (its top-level id read on the way, in constant memory), and the request it answered gets
// a JSON-RPC error saying why, so that one call fails and the connection stays up.
import { deserializeMessage, INTERNAL_ERROR, type JSONRPCMessage } from '@modelcontextprotocol/client'
import { McpSdkMismatchError } from '../shared/errors.ts'
import { TopLevelScanner } from './top-level-scanner.ts'

const NEWLINE = 0x0a

/** A line that went over the cap: how long it was and what it said about itself. */
export interface OversizedMessage {
  bytes: number
  capBytes: number
  /** The id of the request it answered, when it is an answer. */
  id: string | number | undefined
  /** A request or notification from the server rather than an answer: dropped, nothing to fail. */
  fromServer: boolean
}

interface Skipping { scanner: TopLevelScanner, bytes: number }

type Line = string | OversizedMessage

export class BoundedReadBuffer {
  readonly capBytes: number
  readonly #onOversized: (message: OversizedMessage) => void
  /** The bytes of the line being read, while it is within the cap. */
  #parts: Buffer[] = []
  #bytes = 0
  /** Set once the line being read went over the cap. */
  #skipping: Skipping | undefined
  #lines: Line[] = []

  constructor (capBytes: number, onOversized: (message: OversizedMessage) => void) {
    this.capBytes = capBytes
    this.#onOversized = onOversized
  }

  append (chunk: Buffer): void {
    let start = 0
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start)
      this.#take(chunk.subarray(start, newline === -1 ? chunk.length : newline))
      if (newline === -1) return
      this.#endLine()
      start = newline + 1
    }
  }

  /** The next complete message, or null until more arrives; lines that are not JSON are skipped, as the SDK does. */
  readMessage (): JSONRPCMessage | null {
    for (let line = this.#lines.shift(); line !== undefined; line = this.#lines.shift()) {
      if (typeof line !== 'string') {
        this.#onOversized(line)
        if (line.fromServer || line.id === undefined) continue
        return refusal(line)
      }
      try {
        return deserializeMessage(line.replace(/\r$/, ''))
      } catch (err) {
        if (!(err instanceof SyntaxError)) throw err
      }
    }
    return null
  }

  clear (): void {
    this.#parts = []
    this.#bytes = 0
    this.#skipping = undefined
    this.#lines = []
  }

  #take (piece: Buffer): void {
    if (this.#skipping === undefined && this.#bytes + piece.length <= this.capBytes) {
      this.#parts.push(piece)
      this.#bytes += piece.length
      return
    }
    if (this.#skipping === undefined) {
      // Over the cap: what was kept is scanned once and let go; the rest is scanned as it comes.
      const scanner = new TopLevelScanner()
      for (const part of this.#parts) scanner.feed(part)
      this.#skipping = { scanner, bytes: this.#bytes }
      this.#parts = []
      this.#bytes = 0
    }
    this.#skipping.scanner.feed(piece)
    this.#skipping.bytes += piece.length
  }

  #endLine (): void {
    const skipping = this.#skipping
    if (skipping !== undefined) {
      const { scanner, bytes } = skipping
      this.#lines.push({ bytes, capBytes: this.capBytes, id: scanner.id, fromServer: scanner.hasMethod })
    } else {
      this.#lines.push(Buffer.concat(this.#parts, this.#bytes).toString('utf8'))
    }
    this.#parts = []
    this.#bytes = 0
    this.#skipping = undefined
  }
}

/** The error answer the refused message is replaced with: the caller's request fails with it. */
function refusal ({ id, bytes, capBytes }: OversizedMessage): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id: id as string | number,
    error: { code: INTERNAL_ERROR, message: `the server's answer of ${bytes} bytes is over the ${capBytes}-byte cap on one message; it was refused (the connection stays up)` }
  } as JSONRPCMessage
}

/**
 * Puts a bounded reader in place of the SDK stdio transport's own (its `_readBuffer`, which it
 * feeds every chunk of the child's stdout and drains with readMessage()). The SDK is pinned; if a
 * version renames the field this throws, and every stdio test with it, rather than go back silently
 * to losing the connection on one big answer.
 */
export function useBoundedReader (transport: object, capBytes: number, onOversized: (message: OversizedMessage) => void): void {
  const holder = transport as { _readBuffer?: unknown }
  if (holder._readBuffer === undefined) throw new McpSdkMismatchError('the MCP SDK stdio transport has no _readBuffer: cannot bound its messages')
  holder._readBuffer = new BoundedReadBuffer(capBytes, onOversized)
}
