// A JSON-RPC error for what a hot method threw, as the SDK's protocol layer makes one for a handler:
// a ProtocolError keeps its code, message and data (the domain code -32002 goes out as -32602, as
// 2026-07-28 asks); anything else is a fault of the gateway, answered without its text.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server'

export interface JsonRpcError {
  code: number
  message: string
  data?: unknown
}

const RESOURCE_NOT_FOUND = -32002

export function jsonRpcErrorOf (error: unknown): JsonRpcError {
  if (!(error instanceof ProtocolError)) return { code: ProtocolErrorCode.InternalError, message: 'Internal error' }
  const code = error.code === RESOURCE_NOT_FOUND ? ProtocolErrorCode.InvalidParams : error.code
  return error.data === undefined ? { code, message: error.message } : { code, message: error.message, data: error.data }
}
