// The operator console's files (console/ at the package root, docs/console.md): a request path
// checked name by name against a strict pattern, then read from disk and kept with its ETag. Each
// request stats its file, so a page edited while the gateway runs is served as it is now, and a
// file never asked for costs nothing. Only regular files of known types inside the folder are
// answered: no `..`, no dotfiles, no encoded slashes, no directory listing, no symbolic link out.
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { readFile, realpath, stat } from 'node:fs/promises'
import { dirname, extname, join, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The types the console serves; a file of any other extension is not served. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8'
}

/** One path segment: starts with a letter, digit or underscore (so no dotfile and no `..`), no separators. */
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/

/** The browser's OAuth client, served from the dependency so the console needs no build and no CDN. */
export const VENDOR_FILES: Readonly<Record<string, string>> = {
  'vendor/oauth4webapi.js': 'oauth4webapi'
}

export interface StaticFile {
  readonly body: Buffer
  readonly contentType: string
  readonly etag: string
}

/** The folder holding package.json, walking up from `start` (src/console in the sources, dist/src/console built). */
export function packageRoot (start: string = dirname(fileURLToPath(import.meta.url))): string {
  let dir = start
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir)
    if (parent === dir) throw new Error(`no package.json above ${start}`)
    dir = parent
  }
  return dir
}

/** The relative path a request names, or undefined when it is not one the console serves. */
export function consolePath (wildcard: string, rawUrl: string): string | undefined {
  // An encoded slash or backslash would make one segment look like two after decoding.
  if (/%2f|%5c/i.test(rawUrl.split('?')[0])) return undefined
  const relative = wildcard === '' ? 'index.html' : wildcard
  const segments = relative.split('/')
  if (!segments.every((segment) => SEGMENT.test(segment))) return undefined
  if (CONTENT_TYPES[extname(relative).toLowerCase()] === undefined) return undefined
  return relative
}

function etagOf (body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
}

interface Kept extends StaticFile { readonly mtimeMs: number, readonly size: number }

export class ConsoleFiles {
  readonly #root: string
  readonly #kept = new Map<string, Kept>()
  #realRoot: Promise<string> | undefined
  #vendor = new Map<string, Promise<StaticFile>>()

  constructor (root: string = join(packageRoot(), 'console')) {
    this.#root = root
  }

  get root (): string {
    return this.#root
  }

  /** The file at `relative` (already checked by consolePath), or undefined when there is none. */
  async get (relative: string): Promise<StaticFile | undefined> {
    const vendor = VENDOR_FILES[relative]
    if (vendor !== undefined) return await this.#vendorFile(relative, vendor)
    const path = join(this.#root, ...relative.split('/'))
    const info = await stat(path).catch(() => undefined)
    if (info === undefined || !info.isFile()) return undefined
    const kept = this.#kept.get(relative)
    if (kept !== undefined && kept.mtimeMs === info.mtimeMs && kept.size === info.size) return kept
    // A symbolic link inside the folder may point anywhere: only what really lies inside is served.
    this.#realRoot ??= realpath(this.#root)
    const real = await realpath(path).catch(() => undefined)
    const realRoot = await this.#realRoot.catch(() => undefined)
    if (real === undefined || realRoot === undefined || !real.startsWith(realRoot + sep)) return undefined
    const body = await readFile(real).catch(() => undefined)
    if (body === undefined) return undefined
    const file: Kept = { body, contentType: CONTENT_TYPES[extname(relative).toLowerCase()], etag: etagOf(body), mtimeMs: info.mtimeMs, size: info.size }
    this.#kept.set(relative, file)
    return file
  }

  async #vendorFile (relative: string, specifier: string): Promise<StaticFile> {
    let pending = this.#vendor.get(relative)
    if (pending === undefined) {
      // Resolved as Node resolves the package (its "exports"), wherever npm placed it.
      pending = readFile(fileURLToPath(import.meta.resolve(specifier))).then((body) => ({
        body, contentType: CONTENT_TYPES['.js'], etag: etagOf(body)
      }))
      // A failed read is tried again by the next request.
      pending.catch(() => { this.#vendor.delete(relative) })
      this.#vendor.set(relative, pending)
    }
    return await pending
  }
}
