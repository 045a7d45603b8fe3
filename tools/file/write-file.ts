// write_file: creates or replaces a whole workspace file atomically (temp file + rename), creating
// missing folders, and never writing through a link that leads outside the workspace. A file in
// an existing folder takes the quick way (atomic-write.ts, holdTargetBeneath); anything else the
// careful way, which walks the path, follows a link inside, creates folders and says why it refuses.
import { configOf, registry, toolResult } from '../../src/registry/index.ts'
import { holdTargetBeneath, replaceInFolder, writeFileAtomic } from './lib/atomic-write.ts'
import { countedWrite, quotaOf } from './lib/counted-write.ts'
import { failure, FileToolError, showPath } from './lib/errors.ts'
import { FILE_LIMITS } from './lib/limits.ts'
import { canOpenBeneath } from './lib/open-beneath.ts'
import { checkPathText, lexicalInWorkspace, openAndResolve } from './lib/paths.ts'
import { prepareWorkspace, workspaceOf } from './lib/workspace.ts'

registry.register({
  name: 'write_file',
  toolset: 'file',
  emoji: '✍️',
  // Replaces what the file held; the same content written twice leaves the same file.
  annotations: { title: 'Write file', readOnly: false, destructive: true, idempotent: true, openWorld: false },
  description: [
    'Create a text file in the workspace, or replace the whole content of an existing one.',
    'Missing parent folders are created. The write is atomic: the file has either its old or its new content, never a mix.',
    'To change part of an existing file prefer the patch tool, which does not need the whole file.',
    `Content is written as UTF-8, at most ${FILE_LIMITS.maxWriteBytes} bytes.`,
    'Writing through a symbolic link updates the file it points to when that is inside the workspace.',
    'Paths are relative to the workspace root; nothing outside it can be written.'
  ].join(' '),
  schema: {
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File to write, relative to the workspace root (e.g. "notes/todo.md").' },
        content: { type: 'string', description: 'The complete new content of the file (not a diff; an empty string makes an empty file).' }
      },
      required: ['path', 'content'],
      additionalProperties: false
    }
  },
  maxResultSizeChars: 10_000,
  timeoutMs: 30_000,
  prepare: prepareWorkspace,
  handler: async (args, ctx) => {
    const { path, content } = args
    try {
      const bytes = Buffer.byteLength(content)
      if (bytes > FILE_LIMITS.maxWriteBytes) {
        throw new FileToolError(`content is ${bytes} bytes, more than the ${FILE_LIMITS.maxWriteBytes}-byte limit of write_file; nothing was written`, { path })
      }
      const config = configOf(ctx)
      const { workspaceRoot } = config
      const quota = quotaOf(config)
      checkPathText(path)
      const kept = await workspaceOf(workspaceRoot)
      const lexical = lexicalInWorkspace(kept, path)
      const held = canOpenBeneath(kept.real) ? await holdTargetBeneath(kept.real, lexical) : undefined
      if (held !== undefined) {
        try {
          const plan = { bytes: bytes - (held.previous?.size ?? 0), newFiles: held.previous === undefined ? 1 : 0 }
          await countedWrite(kept, quota, path, plan, async () => {
            if (ctx.signal.aborted) throw ctx.signal.reason
            await replaceInFolder(held.folder, held.name, content, held.previous, kept.real, path)
          })
        } finally {
          await held.folder.close()
        }
        return toolResult({ path: held.relative, bytes_written: bytes, created: held.previous === undefined })
      }
      const { workspace, resolved } = await openAndResolve(workspaceRoot, path)
      if (resolved.stats?.isDirectory() === true) {
        throw new FileToolError(`${showPath(path)} is a folder; give the path of a file inside it`, { path })
      }
      const plan = { bytes: bytes - (resolved.stats?.size ?? 0), newFiles: resolved.stats === undefined ? 1 : 0, foldersFor: [resolved] }
      const createdFolders = await countedWrite(workspace, quota, path, plan, async () => {
        if (ctx.signal.aborted) throw ctx.signal.reason
        await writeFileAtomic(resolved.real, content, resolved.stats, workspace.real)
      })
      return toolResult({
        path: resolved.relative,
        bytes_written: bytes,
        created: resolved.stats === undefined,
        ...(createdFolders.length > 0 ? { created_folders: createdFolders } : {})
      })
    } catch (error) {
      return failure(error, path)
    }
  }
})
