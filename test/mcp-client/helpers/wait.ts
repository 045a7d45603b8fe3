// Waits for an event-driven condition, with a real-time bound so a broken test fails instead of hanging.
import type { McpConnection, McpConnectionState } from '../../../src/mcp-client/connection.ts'

export function waitForState (connection: McpConnection, state: McpConnectionState, boundMs = 15_000): Promise<void> {
  if (connection.state === state) return Promise.resolve()
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      connection.off('state', onState)
      reject(new Error(`server "${connection.server}" did not reach ${state} within ${boundMs} ms (it is ${connection.state}: ${connection.lastError})`))
    }, boundMs)
    const onState = (now: McpConnectionState): void => {
      if (now !== state) return
      clearTimeout(timer)
      connection.off('state', onState)
      resolve()
    }
    connection.on('state', onState)
  })
}

/** Polls a cheap condition (state held in memory) until it holds; for effects that emit no event. */
export async function until (condition: () => boolean, what: string, boundMs = 15_000): Promise<void> {
  const started = Date.now()
  while (!condition()) {
    if (Date.now() - started > boundMs) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
