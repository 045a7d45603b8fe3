// Shared set-up of the file tool tests: a harness on a fresh workspace, plus folders beside it that
// no tool may reach (an outside folder with a secret, an empty one, and a sibling `<root>-evil`).
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdir, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import { FILE_LIMITS } from '../../../tools/file/lib/limits.ts'
import { createToolHarness, type ToolHarness } from '../../helpers/harness.ts'

export const SECRET = 'TOP SECRET\n'

export interface FileFixture {
  h: ToolHarness
  /** The workspace root as configured. */
  ws: string
  /** A folder outside the workspace holding secret.txt. */
  outside: string
  /** An empty folder outside the workspace: writes must never land here. */
  empty: string
  /** `<ws>-evil`, the sibling whose name starts with the root's name. */
  evil: string
  /** Writes files (creating folders) inside the workspace. */
  put: (files: Record<string, string | Buffer>) => Promise<void>
  /** The call's parsed result. */
  json: ToolHarness['json']
}

export async function fileFixture (t: TestContext, env: Record<string, string> = {}): Promise<FileFixture> {
  const h = await createToolHarness(env)
  t.after(() => h.close())
  const ws = h.config.workspaceRoot
  const outside = join(h.tempDir, 'outside')
  const empty = join(h.tempDir, 'empty')
  const evil = `${ws}-evil`
  for (const dir of [ws, outside, empty, evil]) await mkdir(dir, { recursive: true })
  await writeFile(join(outside, 'secret.txt'), SECRET)
  await writeFile(join(evil, 'secret.txt'), SECRET)
  const put = async (files: Record<string, string | Buffer>): Promise<void> => {
    for (const [name, content] of Object.entries(files)) {
      await mkdir(join(ws, name, '..'), { recursive: true })
      await writeFile(join(ws, name), content)
    }
  }
  return { h, ws, outside, empty, evil, put, json: h.json }
}

/** Sets some FILE_LIMITS for one test; restored after it. */
export function withLimits (t: TestContext, changes: Partial<typeof FILE_LIMITS>): void {
  const saved = { ...FILE_LIMITS }
  Object.assign(FILE_LIMITS, changes)
  t.after(() => { Object.assign(FILE_LIMITS, saved) })
}

/** Creates a FIFO with mkfifo(1); skips the test (asserting why) where mkfifo does not exist. */
export function makeFifo (t: TestContext, path: string): boolean {
  try {
    execFileSync('mkfifo', [path])
    return true
  } catch (error) {
    assert.equal((error as NodeJS.ErrnoException).code, 'ENOENT', `mkfifo failed for another reason: ${String(error)}`)
    t.skip('mkfifo is not installed on this machine')
    return false
  }
}

/** Temp files left by an atomic write (`.<name>.<hex>.tmp`) anywhere under `dir`. */
export async function leftoverTempFiles (dir: string): Promise<string[]> {
  const names = await readdir(dir, { recursive: true })
  return names.filter((name) => /\.[0-9a-f]{16}\.tmp$/.test(name))
}
