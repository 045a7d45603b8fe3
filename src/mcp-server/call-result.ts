// A dispatch outcome as an MCP tools/call answer. A tool that ran and failed (its own error, bad
// arguments, a hook's block, a timeout) is a result with isError and the very content an HTTP caller
// gets, so the model reads the same words either way; a tool that does not exist for the caller is
// the protocol's error, as the MCP specification asks for unknown tools. Images and sounds a tool
// returned follow the text as ImageContent and AudioContent items.
import { ProtocolError, ProtocolErrorCode, type CallToolResult } from '@modelcontextprotocol/server'
import type { Dispatched, DispatchOutcome } from '../dispatch/call/outcome.ts'

/** The `_meta` key under which the envelope's status fields travel, for clients that want them. */
export const OUTCOME_META_KEY = 'tool-gateway/outcome'

/**
 * The outcome fields, only when they carry what a client needs: where a kept result is, that the
 * text was cut, or an error code. A plain success carries none: clients that hand `_meta` on
 * (LangChain's MCP adapters return an object instead of the text; Mastra and @google/genai pass the
 * whole result to the model) would pay for it in every call.
 */
function outcomeMeta (outcome: DispatchOutcome): CallToolResult['_meta'] {
  const { status, callId, truncated, originalLength, resultId, durationMs, error } = outcome
  if (!truncated && resultId === undefined && error === undefined) return undefined
  return {
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

export function callResultOf ({ outcome, inlineMedia }: Dispatched): CallToolResult {
  if (outcome.status === 'not_found') {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, outcome.error?.message ?? `Unknown tool: ${outcome.tool}`)
  }
  const meta = outcomeMeta(outcome)
  return {
    content: [
      { type: 'text', text: outcome.content },
      ...(inlineMedia ?? []).map(({ kind, mimeType, data }) => ({ type: kind, mimeType, data }))
    ],
    isError: !outcome.ok,
    ...(meta === undefined ? {} : { _meta: meta })
  }
}
