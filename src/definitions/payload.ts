// One answer of the definitions builder: the tools of a selection in one format, with their JSON
// text, its bytes and its ETag, made once and shared frozen.
import type { OpenAIFunctionTool } from './formats/shapes.ts'

export interface DefinitionsPayload<T = OpenAIFunctionTool> {
  readonly generation: number
  readonly tools: readonly T[]
  readonly json: string
  /** `json` encoded once, so serving it costs no per-request encoding or 265 KB allocation. */
  readonly bytes: Buffer
  readonly etag: string
}
