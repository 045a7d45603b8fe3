// The formats GET /definitions serves, and the conversion of one Chat Completions definition (what
// DefinitionsBuilder builds and caches) into each of them. A conversion that cannot be faithful
// leaves the tool out; `leftOutOf` says which variants leave a tool out and why, for /tools.
// `typescript` is the one text format: one declaration for the whole list, never per tool
// (typescriptPayload in ../variants.ts), and it expresses every tool.
import type { ToolEntry } from '../../registry/types.ts'
import { BadRequestError } from '../../shared/errors.ts'
import { mcpToolOf } from './mcp.ts'
import { SEARCH_TOOL_NAME } from '../../registry/types.ts'
import { geminiParameters } from './gemini.ts'
import type { AnthropicTool, ChatTool, FormattedTool, GeminiDeclaration, OpenAIFunctionTool, ResponsesTool } from './shapes.ts'
import { strictParameters } from './strict.ts'

export const FORMATS = ['chat', 'responses', 'anthropic', 'gemini', 'mcp', 'typescript'] as const
export type DefinitionsFormat = typeof FORMATS[number]
const STRICT_FORMATS: readonly DefinitionsFormat[] = ['chat', 'responses']

/** What one answer of GET /definitions is: a format, strict or not. */
export interface Variant {
  readonly format: DefinitionsFormat
  readonly strict: boolean
  /** Anthropic only: every tool but search_tools marked `defer_loading`, loaded when a search names it. */
  readonly deferLoading: boolean
  /** Distinct per variant: the cache key and the ETag's salt. */
  readonly key: string
}

const BOOLEANS: Record<string, boolean> = { true: true, false: false }

// `openai` was the only value before formats existed; it stays an alias of chat.
const ALIASES: Record<string, DefinitionsFormat> = { openai: 'chat' }

function flag (name: string, text: string | undefined): boolean {
  const value = text === undefined ? false : (Object.hasOwn(BOOLEANS, text) ? BOOLEANS[text] : undefined)
  if (value === undefined) throw new BadRequestError(`${name} must be true or false (got ${JSON.stringify(text)})`)
  return value
}

/** The variant a query asks for; a 400 naming the valid values when it names none. */
export function variantOf (format: string | undefined, strictText: string | undefined, deferText?: string): Variant {
  const strict = flag('strict', strictText)
  const deferLoading = flag('defer_loading', deferText)
  const name = format === undefined ? 'chat' : (Object.hasOwn(ALIASES, format) ? ALIASES[format] : format)
  if (!(FORMATS as readonly string[]).includes(name)) {
    throw new BadRequestError(`unknown format ${JSON.stringify(format)}: use one of ${FORMATS.join(', ')} (openai is an alias of chat)`)
  }
  const chosen = name as DefinitionsFormat
  if (strict === true && !STRICT_FORMATS.includes(chosen)) {
    throw new BadRequestError(`strict=true applies to the formats ${STRICT_FORMATS.join(' and ')} only (OpenAI's strict mode), not to ${chosen}`)
  }
  if (deferLoading && chosen !== 'anthropic') {
    throw new BadRequestError(`defer_loading=true applies to format=anthropic only (Anthropic's tool search), not to ${chosen}`)
  }
  return { format: chosen, strict, deferLoading, key: strict ? `${chosen}+strict` : deferLoading ? `${chosen}+defer` : chosen }
}

/** One definition in the variant's format, or undefined when the tool cannot be expressed in it. */
export function formatTool (tool: OpenAIFunctionTool, variant: Variant, entry: ToolEntry | undefined): FormattedTool | undefined {
  const { name, description, parameters } = tool.function
  let served = parameters
  if (variant.strict) {
    const rewrite = strictParameters(parameters)
    if (!rewrite.ok) return undefined
    served = rewrite.value
  }
  switch (variant.format) {
    case 'chat':
      return { type: 'function', function: { name, description, parameters: served, ...(variant.strict ? { strict: true } : {}) } } satisfies ChatTool
    case 'responses':
      return { type: 'function', name, description, parameters: served, strict: variant.strict } satisfies ResponsesTool
    case 'anthropic':
      return {
        name,
        description,
        input_schema: { ...parameters, type: 'object' },
        ...(variant.deferLoading && name !== SEARCH_TOOL_NAME ? { defer_loading: true } : {})
      } satisfies AnthropicTool
    case 'gemini':
      return geminiDeclaration(name, description, parameters)
    case 'mcp':
      return mcpToolOf(tool, entry)
    case 'typescript':
      // Answering JSON here would serve JSON under the TypeScript ETag: a caller bug, loudly.
      throw new TypeError('format=typescript is one text for the whole list: use typescriptPayload, not a per-tool conversion')
  }
}

// Gemini's own rule for function names, narrower than the registry's (no leading digit or dash).
const GEMINI_NAME = /^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$/

function geminiDeclaration (name: string, description: string, parameters: OpenAIFunctionTool['function']['parameters']): GeminiDeclaration | undefined {
  if (!GEMINI_NAME.test(name)) return undefined
  const rewrite = geminiParameters(parameters)
  if (!rewrite.ok) return undefined
  return rewrite.value === undefined ? { name, description } : { name, description, parameters: rewrite.value }
}

type Gap = Readonly<{ format: 'strict' | 'gemini', reason: string }>

// GET /tools asks for every tool on every call: the verdicts are kept per (schema object, name),
// and a registry change brings new schema objects, so a stale verdict is never read.
const gapsCache = new WeakMap<object, Map<string, readonly Gap[]>>()

/** Where a tool is left out, and why: `gemini`, `strict` (chat and responses with strict=true). */
export function leftOutOf (name: string, parameters: OpenAIFunctionTool['function']['parameters']): readonly Gap[] {
  let byName = gapsCache.get(parameters)
  if (byName === undefined) {
    byName = new Map()
    gapsCache.set(parameters, byName)
  }
  let gaps = byName.get(name)
  if (gaps === undefined) {
    gaps = Object.freeze(gapsOf(name, parameters))
    byName.set(name, gaps)
  }
  return gaps
}

function gapsOf (name: string, parameters: OpenAIFunctionTool['function']['parameters']): Gap[] {
  const gaps: Gap[] = []
  const strict = strictParameters(parameters)
  if (!strict.ok) gaps.push({ format: 'strict', reason: strict.reason })
  if (!GEMINI_NAME.test(name)) {
    gaps.push({ format: 'gemini', reason: `the name must start with a letter or _ in Gemini (${GEMINI_NAME.source})` })
  } else {
    const gemini = geminiParameters(parameters)
    if (!gemini.ok) gaps.push({ format: 'gemini', reason: gemini.reason })
  }
  return gaps
}
