// Checks the texts of an upstream tool a model reads (its description and title, the descriptions,
// titles and enum strings of its schema) for what is aimed at the model rather than at its user:
// invisible and bidi characters (removed from what the model sees, since nobody reviewing the text
// can see them), instruction-like text and oversized descriptions (flagged; docs/trust.md).

// Unicode tags (U+E0000-E007F), zero-width characters and the word joiner, the BOM, bidi embeddings,
// overrides and isolates.
const HIDDEN = /[\u{E0000}-\u{E007F}\u200B-\u200D\u2060\uFEFF\u202A-\u202E\u2066-\u2069]/gu

const INSTRUCTIONS: ReadonlyArray<readonly [RegExp, string]> = [
  [/<\s*\/?\s*(important|system|instructions?)\s*>/i, 'a tag addressed to the model'],
  [/\b(ignore|disregard|forget)\b.{0,30}\b(previous|prior|above|earlier|all)\b.{0,20}\binstructions?\b/i, 'an order to ignore instructions'],
  [/\b(do not|don't|never)\b.{0,20}\b(tell|inform|mention|reveal|show)\b.{0,30}\buser\b/i, 'an order to keep something from the user'],
  [/~\/\.ssh|\bid_(rsa|ed25519|ecdsa)\b|(^|[\s"'`(/])\.env\b|\.aws\/credentials|\.netrc\b|\/etc\/(passwd|shadow)/i, 'a reference to secret files'],
  [/\b(before|instead of|when) (using|calling) (any|other|another|the) (tools?|functions?)\b/i, 'an instruction about other tools']
]

export interface ScanResult<T> {
  /** The tool with hidden characters removed from its texts. */
  cleaned: T
  /** What was found, one sentence each, in the order the checks ran. */
  findings: string[]
}

interface Walk { hidden: Set<string>, instructions: Set<string>, count: number }

function codePoint (char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`
}

function cleanText (text: string, walk: Walk): string {
  for (const [pattern, what] of INSTRUCTIONS) if (pattern.test(text.replace(HIDDEN, ''))) walk.instructions.add(what)
  return text.replace(HIDDEN, (char) => {
    walk.count++
    walk.hidden.add(codePoint(char))
    return ''
  })
}

/** A copy of a schema with its description, title and enum strings cleaned, at every depth. */
function cleanSchema (value: unknown, walk: Walk, depth = 0): unknown {
  if (depth > 64 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((item) => cleanSchema(item, walk, depth + 1))
  const copy: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    if ((key === 'description' || key === 'title') && typeof item === 'string') copy[key] = cleanText(item, walk)
    else if (key === 'enum' && Array.isArray(item)) copy[key] = item.map((entry) => typeof entry === 'string' ? cleanText(entry, walk) : entry)
    else if (key === 'properties' && item !== null && typeof item === 'object' && !Array.isArray(item)) {
      // Property names are the arguments' names, not text: only their schemas are walked.
      copy[key] = Object.fromEntries(Object.entries(item).map(([name, schema]) => [name, cleanSchema(schema, walk, depth + 1)]))
    } else copy[key] = cleanSchema(item, walk, depth + 1)
  }
  return copy
}

/** The findings of one tool and its cleaned copy; a tool without findings comes back as it was. */
export function scanTool<T extends { description?: unknown, title?: unknown, inputSchema?: unknown, annotations?: unknown }> (tool: T, maxDescriptionChars: number): ScanResult<T> {
  const walk: Walk = { hidden: new Set(), instructions: new Set(), count: 0 }
  const cleaned = { ...tool }
  if (typeof tool.description === 'string') cleaned.description = cleanText(tool.description, walk)
  if (typeof tool.title === 'string') cleaned.title = cleanText(tool.title, walk)
  // The annotations' title stands in for a missing title (describe-tool.ts).
  const annotations = tool.annotations as { title?: unknown } | undefined
  if (typeof annotations?.title === 'string') cleaned.annotations = { ...annotations, title: cleanText(annotations.title, walk) }
  cleaned.inputSchema = cleanSchema(tool.inputSchema, walk)
  const findings: string[] = []
  if (walk.count > 0) findings.push(`${walk.count} invisible or bidi characters (${[...walk.hidden].slice(0, 8).join(', ')}), removed from what the model sees`)
  for (const what of walk.instructions) findings.push(`instruction-like text aimed at the model: ${what}`)
  const length = typeof cleaned.description === 'string' ? cleaned.description.length : 0
  if (length > maxDescriptionChars) findings.push(`an oversized description: ${length} characters, over ${maxDescriptionChars}`)
  return { cleaned: findings.length === 0 ? tool : cleaned, findings }
}
