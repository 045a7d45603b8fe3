// Static analysis for tool discovery: which files under tools/ self-register at their top level.
// Deciding from the AST (not a regex, not an import) keeps helper modules unloaded and ignores
// calls that only appear in comments, strings or function bodies.
import { glob, stat } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { parseSync } from 'oxc-parser'

interface Node {
  type: string
  [key: string]: unknown
}

function unwrapParens (node: Node): Node {
  let current = node
  while (current.type === 'ParenthesizedExpression') current = current.expression as Node
  return current
}

function isRegistryRegisterCall (node: Node): boolean {
  const call = unwrapParens(node)
  if (call.type !== 'CallExpression' || call.optional === true) return false
  const callee = unwrapParens(call.callee as Node)
  if (callee.type !== 'MemberExpression' || callee.optional === true) return false
  const object = unwrapParens(callee.object as Node)
  const property = callee.property as Node
  const propertyName = callee.computed === true
    ? (property.type === 'Literal' ? property.value : undefined)
    : (property.type === 'Identifier' ? property.name : undefined)
  return object.type === 'Identifier' && object.name === 'registry' && propertyName === 'register'
}

function describeParseError (source: string, message: string, offset: number | undefined): string {
  if (offset === undefined) return message
  const before = source.slice(0, offset).split('\n')
  return `${message} (line ${before.length}, column ${before[before.length - 1].length + 1})`
}

/**
 * True when the module's top level has an expression statement calling `registry.register(...)`.
 * A file with parse errors never counts: importing it would only fail later with a worse message.
 */
export function registersAtTopLevel (filename: string, source: string): { registers: boolean, parseErrors: string[] } {
  const { program, errors } = parseSync(filename, source, { sourceType: 'module' })
  const parseErrors = errors
    .filter((error) => error.severity === 'Error')
    .map((error) => describeParseError(source, error.message, error.labels[0]?.start))
  if (parseErrors.length > 0) return { registers: false, parseErrors }
  const registers = program.body.some((statement) =>
    statement.type === 'ExpressionStatement' && isRegistryRegisterCall(statement.expression as unknown as Node))
  return { registers, parseErrors }
}

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
 * `dir` rejects with ENOENT (a glob alone would find nothing and say nothing).
 */
export async function listModuleFiles (dir: string): Promise<string[]> {
  if (!(await stat(dir)).isDirectory()) throw Object.assign(new Error(`not a folder: ${dir}`), { code: 'ENOTDIR' })
  const found = await Array.fromAsync(glob(MODULE_PATTERN, { cwd: dir, exclude: (name) => name === 'node_modules' }))
  return found.filter(isCandidateFile).map((path) => join(dir, path)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
}
