// The candidate tool modules of a folder, for discovery; which of them register at their top level
// is decided from their syntax tree (./top-level-register.ts, in a child process: ./analyse-modules.ts).
import { glob, stat } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { InvalidConfigError } from '../shared/errors.ts'

// Dot-files and dot-folders never match; node_modules is pruned rather than walked.
const MODULE_PATTERN = '**/*.{ts,mts,js,mjs}'

function isCandidateFile (path: string): boolean {
  return !path.endsWith('.d.ts') && !path.endsWith('.d.mts') && !basename(path).includes('.test.')
}

/**
 * Recursively lists candidate tool modules under `dir` (.ts .mts .js .mjs; no declaration files,
 * no tests, no node_modules or dot-folders). A linked file counts (a Kubernetes ConfigMap mount is
 * made of links); a linked folder is not walked. Sorted by code unit so registration order, and with
 * it which module wins a collision, does not depend on the file system or the locale. A missing
 * `dir` rejects with ENOENT (a glob alone would find nothing and say nothing), a file with GW_ERR_INVALID_CONFIG.
 */
export async function listModuleFiles (dir: string): Promise<string[]> {
  if (!(await stat(dir)).isDirectory()) throw new InvalidConfigError(`The tool folder ${dir} is not a folder`)
  const found = await Array.fromAsync(glob(MODULE_PATTERN, { cwd: dir, exclude: (name) => name === 'node_modules' }))
  return found.filter(isCandidateFile).map((path) => join(dir, path)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
}
