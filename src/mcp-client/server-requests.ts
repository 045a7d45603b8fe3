// A 2025-era server's own requests during a tools/call (elicitation/create, sampling/createMessage):
// each is put to the caller of the call it belongs to (call-attribution.ts) as one
// question, under a key of the gateway's own, and the server gets the caller's answer. A 2026-07-28
// server asks inside its results instead (tool-call-rounds.ts, task-follower.ts).
// The refusals are JSON-RPC errors, as MCP 2025-11-25 has clients answer what they cannot serve:
// - a caller that cannot answer: -32602 for an elicitation (the code for a mode the client does not
//   support), -32601 for sampling (no code is
//   given; "not available here" is what -32601 says). The message is the gateway's
//   GW_ERR_INPUT_UNSUPPORTED one, and the call's own result carries it too (relayed-call.ts),
//   whatever the server makes of the error;
// - a request no call can be found for: -32600, with why, and a warning in the log. Answering it
//   with some caller's answer could hand one user's answer to another's call.
import { ProtocolError, ProtocolErrorCode, type Client } from '@modelcontextprotocol/client'
import type { Logger } from 'pino'
import type { InputRequestMethod } from '../registry/types.ts'
import { InputUnsupportedError } from '../shared/errors.ts'
import { isRecord, messageOf } from '../shared/objects.ts'
import type { CallAttribution } from './call-attribution.ts'
import { askCaller } from './upstream-questions.ts'

const UNSUPPORTED_CODES: Record<InputRequestMethod, number> = {
  'elicitation/create': ProtocolErrorCode.InvalidParams,
  'sampling/createMessage': ProtocolErrorCode.MethodNotFound,
  'roots/list': ProtocolErrorCode.MethodNotFound
}

export interface ServerRequestsOptions {
  server: string
  attribution: CallAttribution
  logger: Logger
}

/** Installs the handlers on a client whose capabilities declare the three (client-capabilities.ts). */
export function answerServerRequests (client: Client, options: ServerRequestsOptions): void {
  let asked = 0
  const answer = async (method: InputRequestMethod, params: unknown, id: string | number): Promise<Record<string, unknown>> => {
    const call = options.attribution.callOf(id)
    if (typeof call === 'string') {
      options.logger.warn({ method, reason: call }, 'MCP server request refused: no call it belongs to')
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `The tool gateway cannot pass on this ${method}: ${call}`)
    }
    // The key names the kind of question; the server's own request id stays between it and the gateway.
    const key = `${method.split('/')[0]}-${++asked}`
    const { _meta: _dropped, ...rest } = isRecord(params) ? params : {}
    try {
      const answers = await askCaller(call.ask, options.server, call.tool, { [key]: { method, params: rest } })
      return answers[key]
    } catch (err) {
      if (err instanceof InputUnsupportedError) {
        call.unanswered(err)
        throw new ProtocolError(UNSUPPORTED_CODES[method], err.message)
      }
      throw new ProtocolError(ProtocolErrorCode.InternalError, `The caller of ${call.tool} did not answer: ${messageOf(err)}`)
    }
  }
  // The SDK checks the requests and answers against the revision's schemas around these handlers.
  client.setRequestHandler('elicitation/create', async (request, ctx) => await answer('elicitation/create', request.params, ctx.mcpReq.id) as never)
  client.setRequestHandler('sampling/createMessage', async (request, ctx) => await answer('sampling/createMessage', request.params, ctx.mcpReq.id) as never)
  // Roots describe the client's workspace, and one connection serves every caller: a 2025 server
  // asks for them when it likes (server-everything does right after initialize), not for one call,
  // so no caller's roots are its to see. The gateway's own: none.
  client.setRequestHandler('roots/list', async () => ({ roots: [] }))
}
