// Small readers for query strings and headers that carry lists and numbers as text.
import { BadRequestError } from '../errors.ts'

/** `a, b,,c` → ['a', 'b', 'c']; absent → undefined. */
export function commaList (value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined
  return value.split(',').map((item) => item.trim()).filter((item) => item !== '')
}

/**
 * A header holding a whole number of at most 15 digits, or undefined when absent. Throws a message
 * naming the header. `name` is lower case, as Node keys incoming headers.
 */
export function numericHeader (headers: Record<string, string | string[] | undefined>, name: Lowercase<string>): number | undefined {
  const raw = headers[name]
  if (raw === undefined) return undefined
  const text = Array.isArray(raw) ? raw[0] : raw
  if (!/^\s*\d{1,15}\s*$/.test(text)) throw new BadRequestError(`header ${name} must be a whole number (got ${JSON.stringify(text)})`)
  return Number(text)
}
