// The terminal's sandbox tests need bubblewrap (Debian's package `bubblewrap`).
import { ensureDebianCommand } from './debian-package.ts'

/** Makes sure `bwrap` runs on this Linux machine, installing it with apt-get if needed. */
export function ensureBubblewrap (): void {
  ensureDebianCommand('bwrap', ['--version'], 'bubblewrap')
}
