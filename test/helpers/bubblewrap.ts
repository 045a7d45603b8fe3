// The terminal's sandbox tests need bubblewrap (Debian's package `bubblewrap`). Like every test that
// needs a system package, they install it themselves when it is missing, so `npm test` on a fresh
// machine tests the sandbox instead of skipping it; when it cannot be installed they fail, saying why.
// Test files run in parallel: flock keeps two installs from fighting over apt's lock.
import { execFileSync } from 'node:child_process'

function bwrapRuns (): boolean {
  try {
    execFileSync('bwrap', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** Makes sure `bwrap` runs on this Linux machine, installing it with apt-get if needed. */
export function ensureBubblewrap (): void {
  if (bwrapRuns()) return
  const root = process.getuid?.() === 0
  const script = `${root ? '' : 'sudo -n '}apt-get update -qq && ${root ? '' : 'sudo -n '}apt-get install -y -qq --no-install-recommends bubblewrap`
  try {
    execFileSync('flock', ['/tmp/tool-gateway-bubblewrap.lock', 'sh', '-c', `command -v bwrap >/dev/null || { ${script}; }`], {
      stdio: ['ignore', 'ignore', 'pipe'], timeout: 600_000
    })
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim() ?? ''
    throw new Error(`bubblewrap (bwrap) is missing and could not be installed with apt-get: ${stderr || (err as Error).message}`)
  }
  if (!bwrapRuns()) throw new Error('bubblewrap was installed but `bwrap --version` still fails')
}
