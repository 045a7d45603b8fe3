// The MCP client SDK (2.4) hands a notification to its handler one microtask after reading it, but
// a response at once. A progress report read in the same chunk as its request's answer (one stdio
// read, as the SDK's serveStdio writes a call's last report and its answer, or one SSE chunk) thus
// found its request already answered and was dropped: the caller never got the last report. Here
// responses are handed on one microtask late, behind the notifications read before them, which
// restores the order they were sent in. Installed on a connected client's transport.
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client'

function isResponse (message: JSONRPCMessage): boolean {
  return 'id' in message && !('method' in message)
}

export function answersAfterNotifications (transport: Pick<Transport, 'onmessage'>): void {
  const dispatch = transport.onmessage
  if (dispatch === undefined) return
  transport.onmessage = (message, extra) => {
    if (isResponse(message)) queueMicrotask(() => { dispatch(message, extra) })
    else dispatch(message, extra)
  }
}
