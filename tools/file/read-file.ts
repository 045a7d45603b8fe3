// read_file: shows a page of a workspace text file with line numbers, streaming so huge files cost
// only the page, with a character budget that ends pages at whole lines and says where to go on.
import { configOf, registry, toolResult } from '../../src/registry/index.ts'
import { binaryReason } from './lib/binary.ts'
import { failure, FileToolError, showPath } from './lib/errors.ts'
import { notText, openWorkspaceFile } from './lib/file-io.ts'
import { FILE_LIMITS } from './lib/limits.ts'
import { readLinePage } from './lib/line-page.ts'

registry.register({
  name: 'read_file',
  toolset: 'file',
  emoji: '📖',
  // Reads only, and only inside the workspace.
  annotations: { title: 'Read file', readOnly: true, openWorld: false },
  description: [
    'Read a UTF-8 text file from the workspace. Output is line-numbered, one line per row as `N|text`',
    '(N is the 1-based line number, not part of the file; do not copy it into edits).',
    `Use offset/limit to page through large files: by default lines 1-${FILE_LIMITS.readDefaultLines}.`,
    `One call returns at most about ${FILE_LIMITS.readCharBudget} characters and always stops at a whole line;`,
    'when more lines remain the result has `next_offset`: call again with offset = next_offset.',
    '`total_lines` gives the file length when known. Binary files are refused.',
    'Folders cannot be read: use search_files with target "files" to list them.',
    'Paths are relative to the workspace root; nothing outside it can be read.'
  ].join(' '),
  schema: {
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File to read, relative to the workspace root (e.g. "src/app.ts").' },
        offset: { type: 'integer', minimum: 1, description: 'Line number to start at, 1-based. Default 1. Use next_offset from the previous result to continue.' },
        limit: { type: 'integer', minimum: 1, description: `Most lines to return. Default ${FILE_LIMITS.readDefaultLines}.` }
      },
      required: ['path'],
      additionalProperties: false
    }
  },
  maxResultSizeChars: 100_000,
  timeoutMs: 30_000,
  handler: async (args, ctx) => {
    const { path, offset = 1, limit = FILE_LIMITS.readDefaultLines } = args
    try {
      const file = await openWorkspaceFile(configOf(ctx).workspaceRoot, path, 'Use search_files with target "files" to list what it contains.')
      try {
        const { size } = file.stats
        const page = await readLinePage(file.reader, {
          offset,
          limit,
          budget: FILE_LIMITS.readCharBudget,
          countAll: size <= FILE_LIMITS.readCountLinesUpToBytes,
          signal: ctx.signal,
          size,
          // The binary sniff looks at the start of the first read: no read of its own.
          inspectStart: (start) => {
            const reason = binaryReason(start.subarray(0, FILE_LIMITS.sniffBytes))
            if (reason !== undefined) throw notText(file, reason)
          }
        })
        if (page.linesReturned === 0 && offset > 1 && page.totalLines !== undefined) {
          throw new FileToolError(`offset ${offset} is past the end of ${showPath(path)}, which has ${page.totalLines} lines`, {
            path, total_lines: page.totalLines
          })
        }
        return toolResult({
          path: file.relative,
          content: page.content,
          offset,
          lines_returned: page.linesReturned,
          total_lines: page.totalLines ?? null,
          size_bytes: size,
          truncated: page.truncated,
          ...(page.nextOffset === undefined ? {} : { next_offset: page.nextOffset }),
          ...(page.cutLines.length > 0 ? { cut_lines: page.cutLines } : {})
        })
      } finally {
        await file.reader.close()
      }
    } catch (error) {
      return failure(error, path)
    }
  }
})
