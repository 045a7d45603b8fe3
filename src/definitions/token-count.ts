// What definitions cost a model's context, in tokens of o200k_base (the encoding of OpenAI's
// current models; other vendors' tokenizers differ, but by a few percent on JSON, so the figure
// still tells an operator which tools are expensive). Counting a large answer takes milliseconds,
// so each count is kept with the object it was made for: a served payload or a definition is
// immutable and shared while it is cached, and a WeakMap lets it go with the cache entry.
import { createRequire } from 'node:module'

type Encoding = typeof import('gpt-tokenizer/encoding/o200k_base')

const counted = new WeakMap<object, number>()
let encoding: Encoding | undefined

/**
 * The encoder, loaded on the first count: its tables take about 200 ms to load, which every start
 * (and every test process) would pay if imported at the top, for a figure only some callers ask for.
 */
function countTokens (text: string): number {
  encoding ??= createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as Encoding
  return encoding.countTokens(text)
}

/**
 * Tokens of the bytes a definitions answer serves (any format the payload cache holds), counted
 * on the first request for that payload only: the default GET /definitions path is benchmarked.
 */
export function payloadTokens (payload: { readonly bytes: Buffer }): number {
  let tokens = counted.get(payload)
  if (tokens === undefined) {
    tokens = countTokens(payload.bytes.toString('utf8'))
    counted.set(payload, tokens)
  }
  return tokens
}

/** Tokens of one definition as it is sent: its JSON text, as one entry of the `tools` array. */
export function definitionTokens (definition: object): number {
  let tokens = counted.get(definition)
  if (tokens === undefined) {
    tokens = countTokens(JSON.stringify(definition))
    counted.set(definition, tokens)
  }
  return tokens
}
