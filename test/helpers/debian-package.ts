// Tests that need a program from Debian's packages (bubblewrap, redis-server) install it themselves
// when it is missing, so `npm test` on a fresh machine tests it instead of skipping; when it cannot
// be installed they fail, saying why. Test files run in parallel: flock keeps two installs from
// fighting over apt's lock.
import { execFileSync } from 'node:child_process'

function runs (command: string, versionArgs: readonly string[]): boolean {
  try {
    execFileSync(command, versionArgs, { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** Makes sure `command versionArgs...` runs, installing Debian's `pkg` with apt-get if needed. */
export function ensureDebianCommand (command: string, versionArgs: readonly string[], pkg: string): void {
  if (runs(command, versionArgs)) return
  const sudo = process.getuid?.() === 0 ? '' : 'sudo -n '
  const script = `${sudo}apt-get update -qq && ${sudo}apt-get install -y -qq --no-install-recommends ${pkg}`
  try {
    execFileSync('flock', [`/tmp/tool-gateway-${pkg}.lock`, 'sh', '-c', `command -v ${command} >/dev/null || { ${script}; }`], {
      stdio: ['ignore', 'ignore', 'pipe'], timeout: 600_000
    })
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim() ?? ''
    throw new Error(`${command} is missing and could not be installed with apt-get (package ${pkg}): ${stderr || (err as Error).message}`)
  }
  if (!runs(command, versionArgs)) throw new Error(`${pkg} was installed but \`${command} ${versionArgs.join(' ')}\` still fails`)
}
