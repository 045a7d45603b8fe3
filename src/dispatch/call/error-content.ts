// Cleans what a failed call hands the model, wherever the failure came from (a handler's
// exception, a tool's or an MCP server's error result, a hook's block message, the HTTP edge):
// credentials redacted, chat framing neutralised. Successful results are the tool's business and
// pass untouched; only failures carry text the gateway builds from exceptions and foreign errors.
import { isRecord } from '../../shared/objects.ts'
import { toolError } from '../../registry/tool-result.ts'
import { neutralizeFraming } from './framing.ts'
import type { StepResult } from './outcome.ts'
import { REDACTED, redactText, secretArgumentValues, type SecretSettings } from './redact.ts'

const MAX_JSON_DEPTH = 32

type Clean = (text: string) => string

export class ErrorContentCleaner {
  #secretArguments: ReadonlySet<string> = new Set()
  #secretValues: readonly string[] = []

  constructor (settings: SecretSettings = {}) {
    this.update(settings)
  }

  /** Redacts these from now on (a configuration reload named other secrets). */
  update (settings: SecretSettings): void {
    this.#secretArguments = new Set(settings.secretArguments ?? [])
    this.#secretValues = settings.secretValues ?? []
  }

  /** A message, redacted then neutralised; `args` (the call's) adds the values of secret arguments. */
  text (text: string, args?: unknown): string {
    return this.#cleaner(args)(text)
  }

  /** A failed result with its content and message cleaned; an ok result as it is. */
  result (result: StepResult, args?: unknown): StepResult {
    if (result.status === 'ok') return result
    const clean = this.#cleaner(args)
    // The gateway's own `{"error": message}`: clean the message and write the content again.
    if (result.message !== undefined && result.content === toolError(result.message)) {
      const message = clean(result.message)
      return message === result.message ? result : { ...result, message, content: toolError(message) }
    }
    const content = cleanContent(result.content, clean, this.#secretArguments)
    const message = result.message === undefined ? undefined : clean(result.message)
    if (content === result.content && message === result.message) return result
    return message === undefined ? { ...result, content } : { ...result, content, message }
  }

  #cleaner (args: unknown): Clean {
    const values = args === undefined || this.#secretArguments.size === 0
      ? this.#secretValues
      : [...this.#secretValues, ...secretArgumentValues(args, this.#secretArguments)]
    return (text) => neutralizeFraming(redactText(text, values))
  }
}

/** A tool's error result: JSON is cleaned value by value (and stays valid JSON), other text as text. */
function cleanContent (content: string, clean: Clean, secretKeys: ReadonlySet<string>): string {
  const start = content.trimStart()[0]
  if (start !== '{' && start !== '[') return clean(content)
  let parsed: unknown
  try {
    parsed = JSON.parse(content)
  } catch {
    return clean(content) // cut by truncation, or not JSON after all
  }
  const cleaned = cleanJson(parsed, clean, secretKeys, 0)
  return cleaned === parsed ? content : JSON.stringify(cleaned)
}

/** Copy-on-write: what has nothing to clean comes back as the same value. */
function cleanJson (value: unknown, clean: Clean, secretKeys: ReadonlySet<string>, depth: number): unknown {
  if (typeof value === 'string') return clean(value)
  if (depth > MAX_JSON_DEPTH) return value
  if (Array.isArray(value)) {
    const items = value.map((item) => cleanJson(item, clean, secretKeys, depth + 1))
    return items.some((item, i) => item !== value[i]) ? items : value
  }
  if (!isRecord(value)) return value
  let copy: Record<string, unknown> | undefined
  for (const [key, item] of Object.entries(value)) {
    const cleaned = secretKeys.has(key) && typeof item === 'string' ? REDACTED : cleanJson(item, clean, secretKeys, depth + 1)
    if (cleaned === item) continue
    copy ??= { ...value }
    Object.defineProperty(copy, key, { value: cleaned, writable: true, enumerable: true, configurable: true })
  }
  return copy ?? value
}
