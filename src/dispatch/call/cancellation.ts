// What cancels the calls of one client connection (HTTP) or one MCP stdio session: the client going
// away, or the gateway giving up on shutdown. An AbortController, whose signal the calls of that
// connection listen to while they run.
import { setMaxListeners } from 'node:events'

export class Cancellation extends AbortController {
  constructor () {
    super()
    // One listener per running call: a batch or an MCP session may run more than the default
    // warning threshold of 10 at once, which is no leak (each call removes its listener).
    setMaxListeners(0, this.signal)
  }

  /** Aborts the signal with `reason`, once: later calls change nothing, as with abort(). */
  cancel (reason: unknown): void {
    this.abort(reason)
  }
}
