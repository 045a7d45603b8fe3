// patch: edits a workspace file in place, either by replacing an exact piece of text or by applying
// a unified diff; the result is written atomically, and a failed edit leaves the file untouched.
import { configOf, registry, toolResult } from '../../src/registry/index.ts'
import type { ArgumentsOf, ToolConfig } from '../../src/registry/index.ts'
import { writeFileAtomic } from './lib/atomic-write.ts'
import { countedWrite, quotaOf } from './lib/counted-write.ts'
import { failure, FileToolError } from './lib/errors.ts'
import { closestInWorker } from './lib/edit-pool.ts'
import { readTextForEdit } from './lib/file-io.ts'
import { FILE_LIMITS } from './lib/limits.ts'
import { openAndResolve, requireFile, type ResolvedPath } from './lib/paths.ts'
import { replaceExact } from './lib/replace.ts'
import { planUnifiedPatch } from './lib/unified.ts'
import { openWorkspace, prepareWorkspace, type Workspace } from './lib/workspace.ts'

const PREVIEW_CHARS = 3000
// A diff preview is a courtesy: on huge or heavily changed files it is skipped rather than waited for.
const PREVIEW_TIMEOUT_MS = 200

async function preview (path: string, before: string, after: string): Promise<string | undefined> {
  // Loaded with the first edit: a start without edits does without it (test/lazy-loading.test.ts).
  const { createTwoFilesPatch } = await import('diff')
  const diff = createTwoFilesPatch(path, path, before, after, undefined, undefined, { context: 2, timeout: PREVIEW_TIMEOUT_MS })
  if (diff === undefined) return undefined
  // Keep the hunks only: the model knows which file it edited.
  const lines = diff.split('\n')
  const body = lines.slice(lines.findIndex((line) => line.startsWith('@@'))).join('\n').trimEnd()
  if (body.length <= PREVIEW_CHARS) return body
  const cut = body.lastIndexOf('\n', PREVIEW_CHARS)
  return `${body.slice(0, cut > 0 ? cut : PREVIEW_CHARS)}\n… (preview cut)`
}

/** The parameters, declared here so that the two modes below can take the arguments' type. */
const PARAMETERS = {
  type: 'object',
  properties: {
    mode: { type: 'string', enum: ['replace', 'patch'], description: '"replace" (default): exact text replacement. "patch": apply a unified diff given in `patch`.' },
    path: { type: 'string', description: 'File to edit, relative to the workspace root. Required for mode "replace"; in mode "patch" optional when the diff names its files.' },
    old_string: { type: 'string', description: 'mode "replace": the exact text to find, copied from the file. Include enough surrounding lines to be unique.' },
    new_string: { type: 'string', description: 'mode "replace": the text that replaces old_string (empty string deletes it).' },
    replace_all: { type: 'boolean', description: 'mode "replace": replace every occurrence instead of requiring exactly one. Default false.' },
    patch: { type: 'string', description: 'mode "patch": the unified diff to apply.' }
  },
  additionalProperties: false
} as const

/** A call's arguments, as the schema declares them. */
type PatchArguments = ArgumentsOf<typeof PARAMETERS>

/** Writes the planned contents under the quotas, creating the folders new files need (none left behind when a write fails). */
async function writeCounted (workspace: Workspace, config: ToolConfig, files: Array<{ resolved: ResolvedPath, after: string, created?: boolean }>, input: string): Promise<void> {
  const plan = {
    bytes: files.reduce((sum, file) => sum + Buffer.byteLength(file.after) - (file.resolved.stats?.size ?? 0), 0),
    newFiles: files.filter((file) => file.resolved.stats === undefined).length,
    foldersFor: files.filter((file) => file.created === true).map((file) => file.resolved)
  }
  await countedWrite(workspace, quotaOf(config), input, plan, async () => {
    for (const file of files) await writeFileAtomic(file.resolved.real, file.after, file.resolved.stats, workspace.real)
  })
}

// Which fields each mode needs is beyond the schema (none is required there): checked here.
async function replaceMode (config: ToolConfig, args: PatchArguments, signal: AbortSignal): Promise<string> {
  const { path } = args
  if (path === undefined) throw new FileToolError('path is required in replace mode: the file to edit')
  if (args.old_string === undefined) throw new FileToolError('old_string is required in replace mode: the exact text to replace', { path })
  if (args.new_string === undefined) throw new FileToolError('new_string is required in replace mode: the text to put instead (may be empty)', { path })
  const { workspace, resolved } = await openAndResolve(config.workspaceRoot, path)
  requireFile(resolved, 'patch edits a file.')
  const before = await readTextForEdit(resolved)
  const findClosest = (text: string, needle: string): ReturnType<typeof closestInWorker> => closestInWorker(text, needle, signal)
  const replaced = await replaceExact(path, before, args.old_string, args.new_string, args.replace_all ?? false, findClosest)
  if (Buffer.byteLength(replaced.text) > FILE_LIMITS.maxWriteBytes) {
    throw new FileToolError(`The edited file would be larger than ${FILE_LIMITS.maxWriteBytes} bytes; nothing was changed.`, { path })
  }
  if (signal.aborted) throw signal.reason
  await writeCounted(workspace, config, [{ resolved, after: replaced.text }], path)
  const diff = await preview(resolved.relative, before, replaced.text)
  return toolResult({
    path: resolved.relative,
    mode: 'replace',
    replacements: replaced.replacements,
    lines: replaced.lines,
    ...(diff === undefined ? {} : { diff })
  })
}

async function diffMode (config: ToolConfig, args: PatchArguments, signal: AbortSignal): Promise<string> {
  if (args.patch === undefined || args.patch.trim() === '') {
    throw new FileToolError('patch is required in patch mode: a unified diff ("--- a/file", "+++ b/file", "@@ ... @@" hunks)')
  }
  const workspace = await openWorkspace(config.workspaceRoot)
  const planned = await planUnifiedPatch(workspace, args.patch, args.path, signal)
  if (signal.aborted) throw signal.reason
  // Every hunk of every file applied in memory; only now does anything touch the disk.
  const changed = planned.filter((file) => file.created || file.after !== file.before)
  await writeCounted(workspace, config, changed, changed[0]?.resolved.input ?? '')
  return toolResult({
    mode: 'patch',
    files: planned.map((file) => ({ path: file.resolved.relative, hunks_applied: file.hunks, created: file.created })),
    hunks_applied: planned.reduce((sum, file) => sum + file.hunks, 0)
  })
}

registry.register({
  name: 'patch',
  toolset: 'file',
  emoji: '🩹',
  // Edits in place; a repeat is not harmless (a replacement containing its old text applies again).
  annotations: { title: 'Patch file', readOnly: false, destructive: true, idempotent: false, openWorld: false },
  description: [
    'Edit a text file in the workspace without rewriting all of it.',
    'mode "replace" (default): replace old_string by new_string. old_string must be the exact current text',
    '(whitespace and indentation included, without the `N|` prefixes read_file shows) and must occur exactly once,',
    'unless replace_all is true. If it is not found the error shows the closest lines; if it occurs several times',
    'the error says where: add surrounding lines to make it unique.',
    'mode "patch": apply a unified diff (`--- a/file`, `+++ b/file`, `@@ -l,n +l,n @@` hunks with " ", "-", "+" lines).',
    'Every hunk must apply or nothing is changed. A diff may create a file (--- /dev/null) or change several files',
    'when path is left out; it cannot delete or rename files.',
    'The write is atomic. Use write_file to create or fully replace a file. Paths stay inside the workspace.'
  ].join(' '),
  schema: { parameters: PARAMETERS },
  maxResultSizeChars: 20_000,
  timeoutMs: 30_000,
  prepare: prepareWorkspace,
  handler: async (args, ctx) => {
    try {
      const config = configOf(ctx)
      return args.mode === 'patch' ? await diffMode(config, args, ctx.signal) : await replaceMode(config, args, ctx.signal)
    } catch (error) {
      return failure(error, args.path)
    }
  }
})
