// What a tool reads of other tools: the view a dynamic schema override is given (the tools of the
// same definitions answer, and of the caller's scope), and what an inner call (ctx.callTool) answers.
import type { JsonSchema } from '../json-schema/document.ts'

/** What an inner call (ctx.callTool) answered: the envelope's status and the text the model would read. */
export interface InnerCallResult {
  readonly status: string
  /** The result, or on failure the error text (`{"error": "..."}` as the envelope carries it). */
  readonly content: string
  readonly callId: string
}

/**
 * What a dynamic schema override may read: the other tools of the same definitions answer (the
 * caller's scope, selection and availability applied), as the model is given them.
 */
export interface SchemaView {
  readonly tools: readonly DeclaredTool[]
  /**
   * Every tool the caller may call, whatever it selected for this answer (its key's scope), that
   * is not known to be unavailable: what an answer that holds this tool alone may describe.
   */
  readonly scope: readonly DeclaredTool[]
}

/** A tool as a dynamic override reads it: as it is declared. */
export interface DeclaredTool {
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchema
}
