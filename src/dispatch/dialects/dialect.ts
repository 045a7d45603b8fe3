// What every batch dialect provides: where its calls sit in a body, how one is checked and read, and
// how an outcome is answered in kind. The table of dialects and the detection are in index.ts.
import { Ajv, type ValidateFunction } from 'ajv'
import { Type, type TSchema } from 'typebox'
import { BadRequestError } from '../../shared/errors.ts'
import type { Dispatched } from '../call/outcome.ts'
import type { ToolMedia } from '../../registry/types.ts'

/** One tool call of a batch, whatever dialect it came in. */
export interface BatchCall {
  /** The model's id for the call; undefined when the dialect leaves it optional (Gemini). */
  id: string | undefined
  name: string
  /** An object, or the JSON string a model emitted; the dispatcher parses and coerces it. */
  args: unknown
}

export interface Dialect {
  readonly name: 'chat' | 'responses' | 'anthropic' | 'gemini'
  /** The accepted body shapes, for the 400 that lists them. */
  readonly shape: string
  /** Keys of an object body whose array holds this dialect's calls. */
  readonly containers: readonly string[]
  /** Whether a bare array body can be a list of this dialect's items. */
  readonly bareArray: boolean
  /** Whether an item of a list is one of this dialect's calls (other items, e.g. text, are left alone). */
  isCall: (item: unknown) => boolean
  /** The calls of `list` (items already known to be calls are checked here); `where` names the list in errors. */
  callsOf: (list: readonly unknown[], where: string) => BatchCall[]
  /** The key of the answer's list, beside `results`. */
  readonly answerKey: string
  /** One call's answer, in this dialect's own shape (its media's data beside the envelope). */
  answer: (call: BatchCall, answer: Dispatched, options: AnswerOptions) => unknown
}

/** What a body asks of its answers beside its calls. */
export interface AnswerOptions {
  /** Anthropic `tool_references: true`: a search_tools result names what it found as tool_reference blocks. */
  readonly toolReferences: boolean
}

/** The images of a call's answer, with their data (media go with successes only). */
export function imagesOf (answer: Dispatched): readonly ToolMedia[] {
  return answer.inlineMedia?.filter((item) => item.kind === 'image') ?? []
}

/** The flags a body may carry beside its calls (a whole request carries parallel_tool_calls). */
export const ParallelFlags = {
  parallel: Type.Optional(Type.Boolean({ description: 'false runs the calls in order, one after another (default true: concurrently).' })),
  parallel_tool_calls: Type.Optional(Type.Boolean({ description: 'As parallel, from a whole request or response that carries it.' }))
}

let ajv: Ajv | undefined

/**
 * A checker for one call item, compiled from the same schema the OpenAPI document shows on its
 * first use: a new Ajv instance compiles its meta-schema first, and compiling the four dialects
 * at start cost about a tenth of the time to ready, for batches many gateways never see. It
 * throws a 400 naming the item and the failing path; Ajv's messages never quote the data, so the
 * message stays bounded whatever the body holds.
 */
export function callChecker<T> (schema: TSchema): (item: unknown, where: string) => T {
  let validate: ValidateFunction | undefined
  return (item, where) => {
    // strict: false because the TypeBox schemas carry descriptions and OpenAPI-only keywords.
    validate ??= (ajv ??= new Ajv({ allErrors: false, strict: false, coerceTypes: false })).compile(schema)
    if (validate(item)) return item as T
    const error = validate.errors?.[0]
    throw new BadRequestError(`${where}${error?.instancePath ?? ''}: ${error?.message ?? 'is not a valid tool call'}`)
  }
}

/** The calls among `list`'s items, each checked; their index in the list names them in errors. */
export function checkedCalls<T> (list: readonly unknown[], where: string, isCall: (item: unknown) => boolean,
  check: (item: unknown, where: string) => T, read: (item: T) => BatchCall): BatchCall[] {
  const calls: BatchCall[] = []
  list.forEach((item, i) => {
    if (isCall(item)) calls.push(read(check(item, `${where}[${i}]`)))
  })
  return calls
}
