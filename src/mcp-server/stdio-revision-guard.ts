// Every request over stdio names its revision in the 2026-07-28 envelope, and the server must
// refuse one it does not speak (-32022, naming what it does). The SDK's serveStdio checks the first
// message of a connection only and passes every later one to the instance it pinned: this transport
// sits between the pipes and the SDK and answers a later request naming another revision itself.
import {
  PROTOCOL_VERSION_META_KEY, UnsupportedProtocolVersionError, isJSONRPCRequest,
  type JSONRPCMessage, type MessageExtraInfo, type Transport, type TransportSendOptions
} from '@modelcontextprotocol/server'
import { isRecord } from '../shared/objects.ts'
import { MODERN_REVISION } from './modern-revision.ts'

/** The revision a request's envelope names, when it names one. */
function claimedRevision (message: JSONRPCMessage): string | undefined {
  if (!isJSONRPCRequest(message) || !isRecord(message.params) || !isRecord(message.params._meta)) return undefined
  const claimed = message.params._meta[PROTOCOL_VERSION_META_KEY]
  return typeof claimed === 'string' ? claimed : undefined
}

export class RevisionGuard implements Transport {
  readonly #inner: Transport
  #opened = false
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void

  constructor (inner: Transport) {
    this.#inner = inner
    inner.onclose = () => this.onclose?.()
    inner.onerror = (error) => this.onerror?.(error)
    inner.onmessage = (message, extra) => { this.#receive(message, extra) }
  }

  async start (): Promise<void> { await this.#inner.start() }
  async send (message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> { await this.#inner.send(message, options) }
  async close (): Promise<void> { await this.#inner.close() }

  #receive (message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    const claimed = claimedRevision(message)
    // The first message is the SDK's to judge (it chooses the connection's revision from it).
    if (this.#opened && claimed !== undefined && claimed !== MODERN_REVISION && isJSONRPCRequest(message)) {
      const error = new UnsupportedProtocolVersionError({ supported: [MODERN_REVISION], requested: claimed })
      this.#inner.send({ jsonrpc: '2.0', id: message.id, error: { code: error.code, message: error.message, data: error.data } })
        .catch((err: unknown) => this.onerror?.(err instanceof Error ? err : new Error(String(err))))
      return
    }
    this.#opened = true
    this.onmessage?.(message, extra)
  }
}
