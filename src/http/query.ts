// Small readers for query strings and headers that carry lists and numbers as text.
import { BadRequestError } from '../shared/errors.ts'

/** `a, b,,c` → ['a', 'b', 'c']; absent → undefined. */
export function commaList (value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined
  return value.split(',').map((item) => item.trim()).filter((item) => item !== '')
}

/**
 * A list that, when present, must name something: `toolsets=` (or only commas and blanks) is
 * refused rather than read as "no selection", which would widen it to every toolset. Absent →
 * undefined. A 400 rather than an empty answer, because an empty value is nearly always a client
 * whose list came out empty by mistake, and a model handed no tools fails later and less clearly.
 */
export function selectionList (value: string | undefined, parameter: string): string[] | undefined {
  const list = commaList(value)
  if (list === undefined || list.length > 0) return list
  throw new BadRequestError(`${parameter} names no toolset (got ${JSON.stringify(value)}): name at least one, or leave ${parameter} out for every toolset you may use`)
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
