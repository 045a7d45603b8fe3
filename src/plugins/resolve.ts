// Finds the file a plugin entry of the config names: a path relative to the config's folder, an
// absolute path or file: URL, a package installed beside the config, or a sample shipped with the
// gateway (`tool-gateway/plugins/policy`). Node 20 cannot resolve a
// bare specifier from another folder for import (import.meta.resolve's parent argument is behind
// a flag, and require.resolve ignores the "import" condition), so package "exports" are read here.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, extname, isAbsolute, join, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PluginLoadError } from '../shared/errors.ts'

export interface ResolvedPlugin {
  /** The plugin's name: file name without extension (its folder's for an index file), or the package specifier. */
  name: string
  kind: 'path' | 'package'
  /** Absolute path of the file to import. */
  file: string
}

/** The conditions Node's ESM loader matches for `import()` of a package. */
const CONDITIONS = new Set(['node', 'import', 'module-sync', 'default'])

function isFile (path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

function isRelative (spec: string): boolean {
  return spec === '.' || spec === '..' || spec.startsWith('./') || spec.startsWith('../') ||
    spec.startsWith('.\\') || spec.startsWith('..\\')
}

function nameOfFile (file: string): string {
  const name = basename(file, extname(file))
  return name === 'index' ? basename(dirname(file)) : name
}

function requireFrom (baseDir: string): NodeJS.Require {
  // createRequire wants a file; it need not exist.
  return createRequire(join(baseDir, '__plugin_loader__.js'))
}

/** A path must name a file (with its extension, as ESM wants) or a folder with a package.json or index.js. */
function resolvePath (spec: string, file: string, baseDir: string): ResolvedPlugin {
  if (isFile(file)) return { name: nameOfFile(file), kind: 'path', file }
  if (existsSync(file)) {
    let entry: string
    try {
      entry = requireFrom(baseDir).resolve(file)
    } catch {
      throw new PluginLoadError(spec, `plugin "${spec}": folder ${file} has no package.json main or index.js`)
    }
    return { name: basename(file), kind: 'path', file: entry }
  }
  const hint = extname(file) === '' ? ' (give the file name with its extension)' : ''
  throw new PluginLoadError(spec, `plugin "${spec}": module not found at ${file}${hint}`)
}

function splitPackage (spec: string): { name: string, subpath: string } {
  const parts = spec.split('/')
  const size = spec.startsWith('@') ? 2 : 1
  const name = parts.slice(0, size).join('/')
  if (parts.length < size || parts.slice(0, size).some((part) => part === '' || part === '@')) {
    throw new PluginLoadError(spec, `plugin "${spec}": not a valid package name`)
  }
  const rest = parts.slice(size).join('/')
  return { name, subpath: rest === '' ? '.' : `./${rest}` }
}

function resolveTarget (target: unknown, star: string): string | undefined {
  if (typeof target === 'string') return target.replaceAll('*', star)
  if (Array.isArray(target)) {
    for (const item of target) {
      const found = resolveTarget(item, star)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (typeof target === 'object' && target !== null) {
    for (const [condition, value] of Object.entries(target)) {
      if (!CONDITIONS.has(condition)) continue
      const found = resolveTarget(value, star)
      if (found !== undefined) return found
    }
  }
  return undefined
}

/** The target of `subpath` in a package.json "exports" field, for import; undefined when not exported. */
export function resolveExports (exports: unknown, subpath: string): string | undefined {
  const isSubpathMap = typeof exports === 'object' && exports !== null && !Array.isArray(exports) &&
    Object.keys(exports).some((key) => key.startsWith('.'))
  const map = (isSubpathMap ? exports : { '.': exports }) as Record<string, unknown>
  if (Object.hasOwn(map, subpath)) return resolveTarget(map[subpath], '')
  // Subpath patterns ("./features/*.js"): the longest matching prefix wins, as in Node.
  let best: { key: string, star: string } | undefined
  for (const key of Object.keys(map)) {
    const at = key.indexOf('*')
    if (at === -1 || key.indexOf('*', at + 1) !== -1) continue
    const prefix = key.slice(0, at)
    const suffix = key.slice(at + 1)
    if (subpath.length < key.length || !subpath.startsWith(prefix) || !subpath.endsWith(suffix)) continue
    if (best === undefined || prefix.length > best.key.indexOf('*')) {
      best = { key, star: subpath.slice(prefix.length, subpath.length - suffix.length) }
    }
  }
  return best === undefined ? undefined : resolveTarget(map[best.key], best.star)
}

function resolvePackage (spec: string, baseDir: string): ResolvedPlugin {
  const { name, subpath } = splitPackage(spec)
  const require = requireFrom(baseDir)
  const lookup = require.resolve.paths(name)
  if (lookup === null) throw new PluginLoadError(spec, `plugin "${spec}": "${name}" is a Node.js built-in module, not a plugin`)
  const packageDir = lookup.map((dir) => join(dir, name)).find((dir) => isFile(join(dir, 'package.json')))
  if (packageDir === undefined) {
    throw new PluginLoadError(spec, `plugin "${spec}": package "${name}" is not installed in a node_modules folder of ${baseDir} or its parents (npm install ${name} beside the config file)`)
  }
  let manifest: { exports?: unknown }
  try {
    manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'))
  } catch (err) {
    throw new PluginLoadError(spec, `plugin "${spec}": cannot read ${join(packageDir, 'package.json')}: ${(err as Error).message}`)
  }
  let file: string
  if (manifest.exports !== undefined && manifest.exports !== null) {
    const target = resolveExports(manifest.exports, subpath)
    if (target === undefined || !target.startsWith('./')) {
      throw new PluginLoadError(spec, `plugin "${spec}": package "${name}" does not export "${subpath}" for import`)
    }
    file = resolve(packageDir, target)
    if (!file.startsWith(packageDir + sep)) throw new PluginLoadError(spec, `plugin "${spec}": export "${subpath}" points outside the package`)
    if (!isFile(file)) throw new PluginLoadError(spec, `plugin "${spec}": package "${name}" exports "${subpath}" as ${target}, which does not exist`)
  } else {
    try {
      // No "exports": main, extensions and index.js by the classic rules (an absolute path bypasses exports).
      file = require.resolve(subpath === '.' ? packageDir : join(packageDir, subpath))
    } catch {
      throw new PluginLoadError(spec, `plugin "${spec}": package "${name}" has no entry point for "${subpath}" (main or index.js)`)
    }
  }
  return { name: spec, kind: 'package', file }
}

/** What names a sample plugin shipped in the gateway's own plugins/ folder. */
export const SHIPPED_PLUGIN_PREFIX = 'tool-gateway/plugins/'
// The samples sit beside the running code: plugins/*.ts next to src/ when run from the sources,
// dist/plugins/*.js next to dist/src/ when compiled (npm start, the image). So a config naming one
// works wherever it is copied, and under both.
const SHIPPED_PLUGINS = new URL('../../plugins/', import.meta.url)
const CODE_EXTENSION = extname(fileURLToPath(import.meta.url))

function shippedPlugins (): string[] {
  try {
    return readdirSync(SHIPPED_PLUGINS).filter((file) => extname(file) === CODE_EXTENSION).map((file) => basename(file, CODE_EXTENSION)).sort()
  } catch {
    return []
  }
}

function resolveShipped (spec: string): ResolvedPlugin {
  const name = spec.slice(SHIPPED_PLUGIN_PREFIX.length)
  const known = shippedPlugins()
  if (!known.includes(name)) {
    throw new PluginLoadError(spec, `plugin "${spec}": the gateway ships no plugin "${name}"; it ships: ${known.join(', ') || 'none'}`)
  }
  return { name, kind: 'path', file: fileURLToPath(new URL(name + CODE_EXTENSION, SHIPPED_PLUGINS)) }
}

/**
 * Resolves one plugin module string: `tool-gateway/plugins/<name>` as a shipped sample; absolute
 * paths and file: URLs as they are; `./` and `../` against `baseDir`; a string naming an existing
 * file under `baseDir` (`plugins/policy.ts`) as that file; anything else as a package installed
 * beside `baseDir`. Throws an Error that says what
 * was looked for and where.
 */
export function resolvePluginModule (spec: string, baseDir: string): ResolvedPlugin {
  if (typeof spec !== 'string' || spec.trim() === '') throw new PluginLoadError(spec, 'plugin module must be a non-empty string')
  if (spec.startsWith(SHIPPED_PLUGIN_PREFIX)) return resolveShipped(spec)
  if (spec.startsWith('file:')) return resolvePath(spec, fileURLToPath(spec), baseDir)
  if (isAbsolute(spec)) return resolvePath(spec, spec, baseDir)
  if (isRelative(spec)) return resolvePath(spec, resolve(baseDir, spec), baseDir)
  const local = resolve(baseDir, spec)
  if (isFile(local)) return resolvePath(spec, local, baseDir)
  return resolvePackage(spec, baseDir)
}
