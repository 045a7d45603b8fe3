// Finds where a piece of text that did not match most likely was meant to be, so a failed edit can
// show the model the real lines to copy: first an exact match ignoring whitespace, else the window
// of lines most similar to the text, found from its first and last lines (bigram similarity).

export interface ClosestLines {
  /** 1-based, inclusive. */
  startLine: number
  endLine: number
  /** 0..1; 1 for a match that differs only in whitespace. */
  similarity: number
  whitespaceOnly: boolean
}

const SCORED_CHARS = 200
const CANDIDATES = 8
const MIN_SIMILARITY = 0.3

export function splitLines (text: string): string[] {
  return text.split('\n').map((line) => line.endsWith('\r') ? line.slice(0, -1) : line)
}

function squash (line: string): string {
  return line.trim().replace(/\s+/g, ' ')
}

function bigrams (text: string): Map<string, number> {
  const counts = new Map<string, number>()
  for (let i = 0; i < text.length - 1; i++) {
    const pair = text.slice(i, i + 2)
    counts.set(pair, (counts.get(pair) ?? 0) + 1)
  }
  return counts
}

/** Dice coefficient of the character bigrams of two lines, whitespace squashed. */
export function lineSimilarity (a: string, b: string, bigramsOfB?: Map<string, number>): number {
  const x = squash(a).slice(0, SCORED_CHARS)
  const y = squash(b).slice(0, SCORED_CHARS)
  if (x === y) return 1
  if (x.length < 2 || y.length < 2) return 0
  const other = bigramsOfB ?? bigrams(y)
  const mine = bigrams(x)
  let shared = 0
  for (const [pair, count] of mine) shared += Math.min(count, other.get(pair) ?? 0)
  return (2 * shared) / (x.length - 1 + y.length - 1)
}

function windowSimilarity (fileLines: string[], start: number, needle: string[]): number {
  let total = 0
  for (let i = 0; i < needle.length; i++) total += lineSimilarity(fileLines[start + i] ?? '', needle[i])
  return total / needle.length
}

function findIgnoringWhitespace (fileLines: string[], needle: string[]): number {
  const squashedNeedle = needle.map(squash)
  const squashedFile = fileLines.map(squash)
  const matchesAt = (start: number): boolean => squashedNeedle.every((line, i) => squashedFile[start + i] === line)
  for (let start = 0; start + needle.length <= fileLines.length; start++) {
    if (matchesAt(start)) return start
  }
  return -1
}

/** The lines of `fileText` closest to `needleText`, or undefined when nothing is similar enough. */
export function findClosestLines (fileText: string, needleText: string): ClosestLines | undefined {
  const fileLines = splitLines(fileText)
  let needle = splitLines(needleText)
  while (needle.length > 1 && needle[needle.length - 1].trim() === '') needle = needle.slice(0, -1)
  while (needle.length > 1 && needle[0].trim() === '') needle = needle.slice(1)
  if (needle.every((line) => line.trim() === '')) return undefined
  const size = Math.min(needle.length, fileLines.length)

  const exact = findIgnoringWhitespace(fileLines, needle)
  if (exact !== -1) return { startLine: exact + 1, endLine: exact + needle.length, similarity: 1, whitespaceOnly: true }

  // Anchor on the first and last non-blank lines of the needle, then score whole windows.
  const anchors = [needle.findIndex((line) => line.trim() !== '')]
  const last = needle.length - 1 - [...needle].reverse().findIndex((line) => line.trim() !== '')
  if (last !== anchors[0]) anchors.push(last)
  const scored: Array<{ start: number, score: number }> = []
  for (const anchor of anchors) {
    const anchorBigrams = bigrams(squash(needle[anchor]).slice(0, SCORED_CHARS))
    for (let line = 0; line < fileLines.length; line++) {
      const score = lineSimilarity(fileLines[line], needle[anchor], anchorBigrams)
      if (score < MIN_SIMILARITY) continue
      const start = Math.max(0, Math.min(line - anchor, fileLines.length - size))
      scored.push({ start, score })
    }
  }
  scored.sort((a, b) => b.score - a.score || a.start - b.start)
  let best: { start: number, score: number } | undefined
  const tried = new Set<number>()
  for (const candidate of scored) {
    if (tried.size >= CANDIDATES) break
    if (tried.has(candidate.start)) continue
    tried.add(candidate.start)
    const score = windowSimilarity(fileLines, candidate.start, needle)
    if (best === undefined || score > best.score) best = { start: candidate.start, score }
  }
  if (best === undefined || best.score < MIN_SIMILARITY) return undefined
  return {
    startLine: best.start + 1,
    endLine: best.start + size,
    similarity: Math.round(best.score * 100) / 100,
    whitespaceOnly: false
  }
}

/** Lines `start`..`end` (1-based, inclusive) as `N|text`, each cut to `maxChars`, at most `maxLines`. */
export function numberedExcerpt (fileText: string, start: number, end: number, maxLines = 40, maxChars = 300): string {
  const lines = splitLines(fileText)
  const last = Math.min(end, lines.length, start + maxLines - 1)
  const out: string[] = []
  for (let n = start; n <= last; n++) {
    const line = lines[n - 1]
    out.push(`${n}|${line.length > maxChars ? line.slice(0, maxChars) + '…' : line}`)
  }
  if (last < end) out.push(`… (${end - last} more lines)`)
  return out.join('\n')
}

/** "line 3" or "lines 3-5". */
export function lineRange (start: number, end: number): string {
  return start === end ? `line ${start}` : `lines ${start}-${end}`
}

/** 1-based line numbers of the given character indexes (sorted ascending) in `text`. */
export function lineNumbersAt (text: string, indexes: number[]): number[] {
  const out: number[] = []
  let line = 1
  let from = 0
  for (const index of indexes) {
    for (let at = text.indexOf('\n', from); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) {
      line += 1
      from = at + 1
    }
    out.push(line)
  }
  return out
}
