// Unified-diff mode of the patch tool, applied with jsdiff: every file the diff names is confined
// to the workspace like any other path, every hunk must apply, and all files are computed in
// memory before anything is written, so a hunk that fails changes nothing.
import type { StructuredPatch } from 'diff'
import { lineRange, numberedExcerpt, type ClosestLines } from './closest.ts'
import { unifiedInWorker } from './edit-pool.ts'
import { FileToolError, showPath } from './errors.ts'
import { readTextForEdit } from './file-io.ts'
import { FILE_LIMITS } from './limits.ts'
import { requireFile, resolveInWorkspace, type ResolvedPath } from './paths.ts'
import type { Workspace } from './workspace.ts'

export interface PlannedFile {
  resolved: ResolvedPath
  before: string
  after: string
  hunks: number
  created: boolean
}

const DEV_NULL = '/dev/null'

function cleanName (name: string | undefined): string | undefined {
  if (name === undefined) return undefined
  const trimmed = name.trim()
  return trimmed === '' ? undefined : trimmed
}

/** The workspace path a section of the diff targets; `a/` and `b/` prefixes (git style) removed. */
function targetOf (section: StructuredPatch): { name: string | undefined, creates: boolean } {
  let oldName = cleanName(section.oldFileName)
  let newName = cleanName(section.newFileName)
  if (newName === DEV_NULL) throw new FileToolError('The patch deletes a file, which the patch tool does not do; nothing was changed.')
  const creates = oldName === DEV_NULL || section.isCreate === true
  if (oldName === DEV_NULL) oldName = undefined
  const gitStyle = section.isGit === true || ((oldName === undefined || oldName.startsWith('a/')) && newName?.startsWith('b/') === true)
  if (gitStyle) {
    if (oldName?.startsWith('a/') === true) oldName = oldName.slice(2)
    if (newName?.startsWith('b/') === true) newName = newName.slice(2)
  }
  if (oldName !== undefined && newName !== undefined && oldName !== newName) {
    throw new FileToolError(`The patch renames ${showPath(oldName)} to ${showPath(newName)}, which the patch tool does not do; nothing was changed.`)
  }
  return { name: newName ?? oldName, creates }
}

function hunkHeader (hunk: StructuredPatch['hunks'][number]): string {
  return `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`
}

function failingHunk (before: string, section: StructuredPatch, path: string, index: number, closest: ClosestLines | undefined): FileToolError {
  const hunk = section.hunks[index]
  let message = `Hunk ${index + 1} of ${section.hunks.length} (${hunkHeader(hunk)}) does not apply to ${showPath(path)}: ` +
    'its context and removed lines were not found in the file; nothing was changed.'
  if (closest !== undefined) {
    message += ` The closest text is at ${lineRange(closest.startLine, closest.endLine)}${closest.whitespaceOnly ? ' (equal except for whitespace)' : ` (similarity ${closest.similarity})`}:\n` +
      numberedExcerpt(before, closest.startLine, closest.endLine)
  } else {
    message += ' Read the file again with read_file and rebuild the diff from its current content.'
  }
  return new FileToolError(message, { path, failed_hunk: index + 1 })
}

async function parse (patchText: string): Promise<StructuredPatch[]> {
  // Loaded with the first patch: a start without edits does without it (test/lazy-loading.test.ts).
  const { parsePatch } = await import('diff')
  let sections: StructuredPatch[]
  try {
    sections = parsePatch(patchText)
  } catch (error) {
    throw new FileToolError(`patch is not a valid unified diff: ${(error as Error).message}; nothing was changed.`)
  }
  sections = sections.filter((section) => section.hunks.length > 0)
  if (sections.length === 0) {
    throw new FileToolError('patch contains no hunks: a unified diff needs "@@ -start,count +start,count @@" lines followed by " ", "-" and "+" lines.')
  }
  return sections
}

/** Computes the new content of every file the diff changes; throws, writing nothing, on any problem. */
export async function planUnifiedPatch (workspace: Workspace, patchText: string, path: string | undefined, signal: AbortSignal): Promise<PlannedFile[]> {
  const sections = await parse(patchText)
  const fromPath = path === undefined ? undefined : await resolveInWorkspace(workspace, path)
  const planned: PlannedFile[] = []
  const seen = new Set<string>()
  for (const section of sections) {
    const target = targetOf(section)
    let resolved: ResolvedPath
    if (target.name === undefined) {
      if (fromPath === undefined) throw new FileToolError('The patch names no file (no ---/+++ lines): pass path to say which file it is for.')
      resolved = fromPath
    } else {
      resolved = await resolveInWorkspace(workspace, target.name)
      if (fromPath !== undefined && resolved.real !== fromPath.real) {
        throw new FileToolError(`The patch is for ${showPath(target.name)} but path is ${showPath(fromPath.input)}; make them agree or leave path out. Nothing was changed.`, { path: fromPath.input })
      }
    }
    if (seen.has(resolved.real)) throw new FileToolError(`The patch has two sections for ${showPath(resolved.relative)}; merge them into one.`, { path: resolved.relative })
    seen.add(resolved.real)
    let before = ''
    if (target.creates) {
      if (resolved.stats !== undefined) throw new FileToolError(`The patch creates ${showPath(resolved.input)}, which already exists; nothing was changed.`, { path: resolved.input })
    } else {
      requireFile(resolved, 'A patch applies to a file.')
      before = await readTextForEdit(resolved)
    }
    const applied = await unifiedInWorker(before, section, signal)
    if ('thrown' in applied) {
      throw new FileToolError(`The patch for ${showPath(resolved.input)} cannot be applied: ${applied.thrown}; nothing was changed.`, { path: resolved.input })
    }
    if ('failedHunk' in applied) throw failingHunk(before, section, resolved.input, applied.failedHunk, applied.closest)
    const after = applied.after
    if (Buffer.byteLength(after) > FILE_LIMITS.maxWriteBytes) {
      throw new FileToolError(`The patched ${showPath(resolved.input)} would be larger than ${FILE_LIMITS.maxWriteBytes} bytes; nothing was changed.`, { path: resolved.input })
    }
    planned.push({ resolved, before, after, hunks: section.hunks.length, created: target.creates })
  }
  return planned
}
