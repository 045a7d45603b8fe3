// search_files: finds text in workspace files (a regular expression over lines) or files by name
// (a glob), one page at a time, skipping binary files, .git and node_modules, within time and size
// bounds it reports when they cut the search short.
import picomatch from 'picomatch'
import { configOf, registry, toolResult } from '../../src/registry/index.ts'
import { failure, FileToolError, showPath } from './lib/errors.ts'
import { FILE_LIMITS } from './lib/limits.ts'
import { openAndResolve } from './lib/paths.ts'
import { renderLines, runSearch, type OutputMode, type SearchItem, type SearchOutcome } from './lib/search.ts'

/** Bounds what picomatch must compile on this thread: its cost grows steeply with nesting. */
function checkGlobSize (glob: string): void {
  const shown = glob.length > 60 ? `${glob.slice(0, 60)}…` : glob
  if (glob.length > FILE_LIMITS.maxGlobChars) {
    throw new FileToolError(`The glob is ${glob.length} characters long; the limit is ${FILE_LIMITS.maxGlobChars}`, { pattern: shown })
  }
  let depth = 0
  let deepest = 0
  for (const char of glob) {
    if (char === '(' || char === '{' || char === '[') deepest = Math.max(deepest, ++depth)
    else if ((char === ')' || char === '}' || char === ']') && depth > 0) depth -= 1
  }
  if (deepest > FILE_LIMITS.maxGlobNesting) {
    throw new FileToolError(`The glob nests groups ${deepest} levels deep; the limit is ${FILE_LIMITS.maxGlobNesting}`, { pattern: shown })
  }
}

function checkPattern (target: 'content' | 'files', pattern: string): void {
  if (target === 'content') {
    try {
      // Compiling is cheap and safe; only matching can run away, and that happens in a worker.
      RegExp(pattern)
    } catch (error) {
      throw new FileToolError(`pattern is not a valid JavaScript regular expression: ${(error as Error).message}`, { pattern })
    }
    return
  }
  if (pattern.trim() === '') throw new FileToolError('pattern is empty: give a glob such as "*.ts" or "src/**/*.test.ts"', { pattern })
  checkGlobSize(pattern)
  try {
    picomatch.makeRe(pattern)
  } catch (error) {
    throw new FileToolError(`pattern is not a valid glob: ${(error as Error).message}`, { pattern })
  }
}

function nonZero (record: Record<string, number>): Record<string, number> | undefined {
  const kept = Object.entries(record).filter(([, count]) => count > 0)
  return kept.length > 0 ? Object.fromEntries(kept) : undefined
}

function skippedOf (outcome: SearchOutcome): Record<string, number> | undefined {
  const { counters } = outcome
  return nonZero({
    ...outcome.skipped,
    ignored_folders: counters.ignoredFolders,
    symlinks_refused: counters.symlinksRefused,
    symlinked_folders_not_followed: counters.symlinkedFolders,
    special_files: counters.special,
    unreadable_folders: counters.unreadableFolders
  })
}

/** Takes the items that fit the output budget; how many were used decides the next offset. */
function pageBody (outputMode: OutputMode | 'names', items: SearchItem[], context: number): { body: Record<string, unknown>, used: number } {
  const budget = FILE_LIMITS.searchOutputBudget
  if (outputMode === 'content') {
    const lines = items.filter((item): item is Extract<SearchItem, { kind: 'line' }> => item.kind === 'line')
    const { text, used } = renderLines(lines, budget, context > 0)
    return { body: { matches: used, output: text }, used }
  }
  let size = 0
  let used = 0
  for (const item of items) {
    size += item.path.length + 16
    if (used > 0 && size > budget) break
    used += 1
  }
  const kept = items.slice(0, used)
  if (outputMode === 'count') {
    return { body: { counts: kept.map((item) => ({ path: item.path, count: item.kind === 'count' ? item.count : 0 })) }, used }
  }
  return { body: { files: kept.map((item) => item.path) }, used }
}

registry.register({
  name: 'search_files',
  toolset: 'file',
  emoji: '🔎',
  // Reads only, and only inside the workspace.
  annotations: { title: 'Search files', readOnly: true, openWorld: false },
  description: [
    'Search the workspace. target "content" (default): find lines matching a JavaScript regular expression',
    '(e.g. "function\\s+load", "TODO|FIXME"; case-sensitive, use [Aa] for either case; matched line by line).',
    'output_mode "content" lists matches as `path:LINE:text` (context lines as `path-LINE-text`),',
    '"files_with_matches" lists the files only, "count" gives matches per file.',
    'target "files": find files whose name matches a glob (e.g. "*.md"; a glob with "/" such as "src/**/*.ts" is matched',
    'against the path relative to `path`). file_glob narrows a content search the same way.',
    `Results come in pages: limit (default ${FILE_LIMITS.searchDefaultLimit}, at most ${FILE_LIMITS.searchMaxLimit}) and offset;`,
    'when more exist the result has next_offset. Binary files, .git and node_modules folders, and links leading outside',
    `the workspace are skipped; files over ${FILE_LIMITS.searchMaxFileBytes} bytes are not searched. A search stops after`,
    `${FILE_LIMITS.searchDeadlineMs / 1000} s or ${FILE_LIMITS.searchMaxFiles} files and then says truncated: true with the reason;`,
    `lines are cut at ${FILE_LIMITS.searchMaxLineChars} characters. Returned paths are relative to the workspace root, ready for read_file.`
  ].join(' '),
  schema: {
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'target "content": a JavaScript regular expression (no slashes, no flags). target "files": a glob on file names.' },
        target: { type: 'string', enum: ['content', 'files'], description: '"content" (default) searches inside files; "files" searches file names.' },
        path: { type: 'string', description: 'Folder (or single file) to search, relative to the workspace root. Default: the whole workspace.' },
        file_glob: { type: 'string', description: 'Only search files whose name matches this glob, e.g. "*.ts" or "src/**/*.py".' },
        limit: { type: 'integer', minimum: 1, description: `Most results to return. Default ${FILE_LIMITS.searchDefaultLimit}, at most ${FILE_LIMITS.searchMaxLimit}.` },
        offset: { type: 'integer', minimum: 0, description: 'Results to skip, for the next page: use next_offset from the previous result. Default 0.' },
        output_mode: { type: 'string', enum: ['content', 'files_with_matches', 'count'], description: 'For target "content": "content" (default) matching lines, "files_with_matches" file paths, "count" matches per file.' },
        context: { type: 'integer', minimum: 0, description: `For output_mode "content": lines shown before and after each match. Default 0, at most ${FILE_LIMITS.searchMaxContext}.` }
      },
      required: ['pattern'],
      additionalProperties: false
    }
  },
  maxResultSizeChars: 100_000,
  timeoutMs: 30_000,
  handler: async (args, ctx) => {
    const { path = '.', target = 'content', pattern, file_glob: fileGlob, output_mode: outputMode = 'content' } = args
    try {
      checkPattern(target, pattern)
      if (fileGlob !== undefined) checkPattern('files', fileGlob)
      // The schema bounds these from below only.
      const limit = Math.min(args.limit ?? FILE_LIMITS.searchDefaultLimit, FILE_LIMITS.searchMaxLimit)
      const offset = Math.min(args.offset ?? 0, Number.MAX_SAFE_INTEGER)
      const context = Math.min(args.context ?? 0, FILE_LIMITS.searchMaxContext)
      const { workspace, resolved: start } = await openAndResolve(configOf(ctx).workspaceRoot, path)
      if (start.stats === undefined) throw new FileToolError(`Nothing to search: ${showPath(path)} does not exist`, { path })
      const outcome = await runSearch(workspace, {
        target,
        pattern,
        fileGlob,
        outputMode,
        context,
        offset,
        limit,
        start: { relative: start.relative, real: start.real, isFile: start.stats.isFile() },
        root: workspace.real,
        signal: ctx.signal
      })
      const { body, used } = pageBody(target === 'files' ? 'names' : outputMode, outcome.items, context)
      const cutByBudget = used < outcome.items.length
      const nextOffset = cutByBudget || outcome.more ? offset + used : undefined
      const skipped = skippedOf(outcome)
      return toolResult({
        target,
        ...(target === 'content' ? { output_mode: outputMode } : {}),
        pattern,
        path: start.relative,
        ...body,
        offset,
        files_scanned: outcome.filesScanned,
        truncated: outcome.stoppedBy !== undefined,
        ...(outcome.stoppedBy === undefined ? {} : { truncated_reason: `stopped early: ${outcome.stoppedBy}; results may be incomplete` }),
        ...(nextOffset === undefined ? {} : { next_offset: nextOffset }),
        ...(cutByBudget ? { note: `page ended early to stay under ${FILE_LIMITS.searchOutputBudget} characters; continue with next_offset` } : {}),
        ...(skipped === undefined ? {} : { skipped })
      })
    } catch (error) {
      return failure(error, path)
    }
  }
})
