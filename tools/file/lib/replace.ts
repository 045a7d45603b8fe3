// Exact-text replacement for the patch tool: the old text must occur exactly once (or replace_all),
// and every failure says what to do next: where the closest lines are, or where the matches are.
import { lineNumbersAt, lineRange, numberedExcerpt, type ClosestLines } from './closest.ts'
import { FileToolError, showPath } from './errors.ts'

export interface Replaced {
  text: string
  replacements: number
  /** Line numbers (in the old text) where replacements started. */
  lines: number[]
}

const MAX_LINES_LISTED = 20

function indexesOf (text: string, needle: string): number[] {
  const found: number[] = []
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) found.push(at)
  return found
}

/** Finds the lines closest to a text that was not found (in a worker: it can be slow on large files). */
export type FindClosest = (text: string, needle: string) => Promise<ClosestLines | undefined>

async function notFound (path: string, text: string, oldString: string, findClosest: FindClosest): Promise<FileToolError> {
  const closest = await findClosest(text, oldString)
  const subject = `old_string was not found in ${showPath(path)}; nothing was changed.`
  if (closest === undefined) {
    return new FileToolError(`${subject} No similar lines were found: read the file again with read_file and copy the text exactly.`, { path, matches: 0 })
  }
  const range = lineRange(closest.startLine, closest.endLine)
  const excerpt = numberedExcerpt(text, closest.startLine, closest.endLine)
  const advice = closest.whitespaceOnly
    ? `The text at ${range} matches it except for whitespace (indentation, tabs or trailing spaces). Copy it exactly, without the "N|" prefixes:`
    : `The closest text is at ${range} (similarity ${closest.similarity}). Copy the exact text from there, without the "N|" prefixes:`
  return new FileToolError(`${subject} ${advice}\n${excerpt}`, {
    path,
    matches: 0,
    closest: { start_line: closest.startLine, end_line: closest.endLine, similarity: closest.similarity, whitespace_only: closest.whitespaceOnly }
  })
}

/**
 * Replaces `oldString` by `newString` in `text`. When the file uses CRLF and the strings use bare
 * LF (read_file shows lines without their \r), the strings are adapted to CRLF.
 */
export async function replaceExact (
  path: string, text: string, oldString: string, newString: string, replaceAll: boolean, findClosest: FindClosest
): Promise<Replaced> {
  if (oldString === '') throw new FileToolError('old_string is empty: give the exact text to replace (use write_file to create or overwrite a whole file)', { path })
  if (oldString === newString) throw new FileToolError('old_string and new_string are identical: there is nothing to change', { path })
  let from = oldString
  let to = newString
  let found = indexesOf(text, from)
  if (found.length === 0 && text.includes('\r\n') && from.includes('\n') && !from.includes('\r')) {
    from = oldString.replace(/\n/g, '\r\n')
    to = newString.replace(/\r?\n/g, '\r\n')
    found = indexesOf(text, from)
  }
  if (found.length === 0) throw await notFound(path, text, oldString, findClosest)
  const lines = lineNumbersAt(text, found)
  if (found.length > 1 && !replaceAll) {
    const listed = lines.slice(0, MAX_LINES_LISTED).join(', ') + (lines.length > MAX_LINES_LISTED ? ', …' : '')
    throw new FileToolError(
      `old_string matches ${found.length} times in ${showPath(path)} (at lines ${listed}); nothing was changed. ` +
      'Include more surrounding lines in old_string to make it unique, or set replace_all to true to replace every occurrence.',
      { path, matches: found.length, lines }
    )
  }
  // Sliced by hand: String.replace would interpret `$&` and friends in new_string.
  const pieces: string[] = []
  let last = 0
  for (const at of found) {
    pieces.push(text.slice(last, at), to)
    last = at + from.length
  }
  pieces.push(text.slice(last))
  return { text: pieces.join(''), replacements: found.length, lines }
}
