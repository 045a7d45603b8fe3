// The answers of GET /definitions in a format other than the default: derived from the default
// (Chat Completions) payload of the same selection, and cached against that payload object. The
// default payload is itself cached and replaced when anything changes, so a derived answer lives
// exactly as long as the answer it comes from, and the default path does no extra work at all.
import type { ToolEntry } from '../registry/types.ts'
import type { DefinitionsPayload } from './payload.ts'
import { deepFreeze } from './freeze.ts'
import { formatTool, type Variant } from './formats/formats.ts'
import type { FormattedTool, OpenAIFunctionTool } from './formats/shapes.ts'
import { typescriptDeclarations } from './formats/typescript.ts'
import { etagOf } from './etag.ts'

export class VariantPayloads {
  readonly #derived = new WeakMap<DefinitionsPayload, Map<string, DefinitionsPayload<FormattedTool>>>()
  readonly #entryOf: (name: string) => ToolEntry | undefined

  constructor (entryOf: (name: string) => ToolEntry | undefined) {
    this.#entryOf = entryOf
  }

  of (base: DefinitionsPayload, variant: Variant): DefinitionsPayload<FormattedTool> {
    let byVariant = this.#derived.get(base)
    if (byVariant === undefined) {
      byVariant = new Map()
      this.#derived.set(base, byVariant)
    }
    let payload = byVariant.get(variant.key)
    if (payload === undefined) {
      payload = this.#derive(base, variant)
      byVariant.set(variant.key, payload)
    }
    return payload
  }

  #derive (base: DefinitionsPayload, variant: Variant): DefinitionsPayload<FormattedTool> {
    const tools: FormattedTool[] = []
    for (const tool of base.tools) {
      const formatted = formatTool(tool, variant, this.#entryOf(tool.function.name))
      if (formatted !== undefined) tools.push(formatted)
    }
    const json = JSON.stringify(tools)
    // Salted with the variant: two formats never share an ETag, even when their JSON is the same (`[]`).
    const etag = etagOf(json, variant.key)
    return Object.freeze({ generation: base.generation, tools: deepFreeze(tools), json, bytes: Buffer.from(json, 'utf8'), etag })
  }
}

/** format=typescript: one declaration text for a list of tools, with its bytes and ETag. */
export interface DeclarationsPayload {
  readonly text: string
  readonly bytes: Buffer
  readonly etag: string
}

// Kept against the object the tools come from: a cached default payload (so a repeated request
// renders nothing) or a ranked answer, made per request and gone with it.
const declarations = new WeakMap<object, DeclarationsPayload>()

/** The TypeScript declarations of the tools of a default (chat) answer, or of a ranked selection of them. */
export function typescriptPayload (source: { readonly tools: readonly OpenAIFunctionTool[] }): DeclarationsPayload {
  let payload = declarations.get(source)
  if (payload === undefined) {
    const text = typescriptDeclarations(source.tools.map((tool) => tool.function))
    // Salted: the declarations never share a 304 with a JSON format.
    payload = Object.freeze({ text, bytes: Buffer.from(text, 'utf8'), etag: etagOf(text, 'typescript') })
    declarations.set(source, payload)
  }
  return payload
}
