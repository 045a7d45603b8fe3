// What the gateway tells MCP servers it can do as their client. A server may ask the gateway's
// callers questions: elicitation (a form, or a URL for the user to open), sampling (a completion
// from the caller's model), roots. The gateway puts each to the caller of the call it belongs to
// (ctx.ask), and every kind of caller either answers or fails the call with an error naming what was
// asked (GW_ERR_INPUT_UNSUPPORTED), which the server receives as a JSON-RPC error. So all three are
// declared, in the 2025 `initialize` and in every 2026-07-28 request's envelope: left out, no server
// would ever ask the callers that can answer. The Tasks extension (SEP-2663) is declared per
// tools/call, only to a server that offers it in server/discover: the gateway then follows the task
// handles it may answer with (task-follower.ts).
import { CLIENT_CAPABILITIES_META_KEY, type ClientCapabilities, type ServerCapabilities } from '@modelcontextprotocol/client'
import { isRecord } from '../shared/objects.ts'

export const GATEWAY_CLIENT_CAPABILITIES: ClientCapabilities = Object.freeze({
  elicitation: { form: {}, url: {} },
  sampling: {},
  roots: {}
})

/** The Tasks extension's identifier (SEP-2663). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks'

/** Whether a server's capabilities (its server/discover answer) offer the Tasks extension. */
export function offersTasks (capabilities: ServerCapabilities): boolean {
  const extensions: unknown = (capabilities as { extensions?: unknown }).extensions
  return isRecord(extensions) && isRecord(extensions[TASKS_EXTENSION])
}

/**
 * The `_meta` entry that declares the Tasks extension on one request. It replaces the envelope's
 * capabilities whole (the SDK lets a request's own `_meta` keys win), so it repeats the others.
 */
export function tasksDeclaration (): Record<string, ClientCapabilities> {
  return { [CLIENT_CAPABILITIES_META_KEY]: { ...GATEWAY_CLIENT_CAPABILITIES, extensions: { [TASKS_EXTENSION]: {} } } }
}
