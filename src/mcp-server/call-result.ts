// A dispatch outcome as an MCP tools/call answer. A tool that ran and failed (its own error, bad
// arguments, a hook's block, a timeout) is a result with isError and the very content an HTTP caller
// gets, so the model reads the same words either way; a tool that does not exist for the caller is
// the protocol's error, as the MCP specification asks for unknown tools. Images and sounds a tool
// returned follow the text as ImageContent and AudioContent items.
import { ProtocolError, ProtocolErrorCode, type CallToolResult } from '@modelcontextprotocol/server'
import type { DispatchOutcome } from '../dispatch/outcome.ts'

/** The `_meta` key under which the envelope's status fields travel, for clients that want them. */
export const OUTCOME_META_KEY = 'tool-gateway/outcome'

export function callResultOf (outcome: DispatchOutcome): CallToolResult {
  if (outcome.status === 'not_found') {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, outcome.error?.message ?? `Unknown tool: ${outcome.tool}`)
  }
  const { status, callId, truncated, originalLength, resultId, durationMs, error } = outcome
  return {
    content: [
      { type: 'text', text: outcome.content },
      ...(outcome.inlineMedia ?? []).map(({ kind, mimeType, data }) => ({ type: kind, mimeType, data }))
    ],
    isError: !outcome.ok,
    _meta: {
      [OUTCOME_META_KEY]: {
        status,
        callId,
        truncated,
        originalLength,
        durationMs,
        // Where the rest of a cut result is kept (read_result or GET /results/:id, same key).
        ...(resultId === undefined ? {} : { resultId }),
        ...(error === undefined ? {} : { code: error.code })
      }
    }
  }
}
