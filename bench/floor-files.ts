// The work of the file tools done the way a careful hand-written route does it, with nothing of the
// gateway's: no confinement checks, no binary sniff, no worker, no dispatcher. Each answers the same
// result text as the tool for the benchmark's inputs (trial.ts compares them before the load).
import { open, readdir, readFile, rename, stat } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import { basename, dirname, join } from 'node:path'

/** read_file's defaults (tools/file/lib/limits.ts): lines per page and characters per answer. */
const READ_DEFAULT_LINES = 2000
const READ_CHAR_BUDGET = 50_000
const SEARCH_DEFAULT_LIMIT = 50
const NEWLINE = 0x0a

/** Where line `offset` (1-based) starts in `data`, and the line number reached (past the end: fewer). */
function lineStart (data: Buffer, offset: number): { at: number, lineNo: number } {
  let at = 0
  let lineNo = 1
  while (lineNo < offset) {
    const newline = data.indexOf(NEWLINE, at)
    if (newline === -1) break
    at = newline + 1
    lineNo += 1
  }
  return { at, lineNo }
}

function countLines (data: Buffer, from: number): number {
  let count = 0
  for (let at = data.indexOf(NEWLINE, from); at !== -1; at = data.indexOf(NEWLINE, at + 1)) count += 1
  return count
}

/** read_file's answer: one page of numbered lines of the whole file read at once. */
export async function readFileResult (workspace: string, path: string, offset = 1, limit = READ_DEFAULT_LINES): Promise<string> {
  const data = await readFile(join(workspace, path))
  let { at, lineNo } = lineStart(data, offset)
  const shown: string[] = []
  let used = 0
  let nextOffset: number | undefined
  let truncated = false
  while (at < data.length) {
    const newline = data.indexOf(NEWLINE, at)
    const end = newline === -1 ? data.length : newline
    const entry = `${lineNo}|${data.toString('utf8', at, end)}`
    const separator = shown.length > 0 ? 1 : 0
    if (shown.length >= limit || used + entry.length + separator > READ_CHAR_BUDGET) {
      nextOffset = lineNo
      truncated = shown.length < limit
      break
    }
    shown.push(entry)
    used += entry.length + separator
    at = end + 1
    lineNo += 1
  }
  // The lines before `at` are counted already; a last line without newline is a line too.
  const totalLines = lineNo - 1 + countLines(data, at) + (at < data.length && data[data.length - 1] !== NEWLINE ? 1 : 0)
  return JSON.stringify({
    path,
    content: shown.join('\n'),
    offset,
    lines_returned: shown.length,
    total_lines: totalLines,
    size_bytes: data.length,
    truncated,
    ...(nextOffset === undefined ? {} : { next_offset: nextOffset })
  })
}

/**
 * write_file's answer, written with the same guarantee the tool gives (the file holds the old or the
 * new content, never a mix, and survives a crash once answered): a temp file beside it, fsync, rename,
 * fsync of the folder. The temp name has the tool's pattern, so search_files never lists one.
 */
export async function writeFileResult (workspace: string, path: string, content: string): Promise<string> {
  const target = join(workspace, path)
  const existed = await stat(target).then(() => true, () => false)
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(8).toString('hex')}.tmp`)
  const file = await open(temp, 'wx', 0o666)
  try {
    await file.writeFile(content)
    await file.sync()
  } finally {
    await file.close()
  }
  await rename(temp, target)
  const folder = await open(dirname(target), 'r')
  try {
    await folder.sync()
  } finally {
    await folder.close()
  }
  return JSON.stringify({ path, bytes_written: Buffer.byteLength(content), created: !existed })
}

interface Search { pattern: RegExp, limit: number, lines: string[], filesScanned: number, more: boolean }

/** Files under `folder` depth first, names sorted by code unit (the tool's order). */
async function * walk (root: string, folder: string): AsyncGenerator<string> {
  const entries = await readdir(join(root, folder), { withFileTypes: true })
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  for (const entry of entries) {
    const path = `${folder}/${entry.name}`
    if (entry.isDirectory()) yield * walk(root, path)
    else if (entry.isFile()) yield path
  }
}

async function searchFile (root: string, path: string, search: Search): Promise<void> {
  const lines = (await readFile(join(root, path), 'utf8')).split('\n')
  search.filesScanned += 1
  for (let n = 0; n < lines.length; n++) {
    if (!search.pattern.test(lines[n])) continue
    // One result past the page tells that more exist.
    if (search.lines.length === search.limit) {
      search.more = true
      return
    }
    search.lines.push(`${path}:${n + 1}:${lines[n]}`)
  }
}

/** search_files' answer for a content search of `folder` from offset 0 with the default limit. */
export async function searchFilesResult (workspace: string, folder: string, pattern: string): Promise<string> {
  const search: Search = { pattern: new RegExp(pattern), limit: SEARCH_DEFAULT_LIMIT, lines: [], filesScanned: 0, more: false }
  for await (const path of walk(workspace, folder)) {
    await searchFile(workspace, path, search)
    if (search.more) break
  }
  return JSON.stringify({
    target: 'content',
    output_mode: 'content',
    pattern,
    path: folder,
    matches: search.lines.length,
    output: search.lines.join('\n'),
    offset: 0,
    files_scanned: search.filesScanned,
    truncated: false,
    ...(search.more ? { next_offset: search.lines.length } : {})
  })
}
