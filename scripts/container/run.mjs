// Runs a command in a container of an image with buildah (podman run cannot set rlimits on these
// machines: the recipe in docs/operations.md). Host network, so the gateway's port is reached on 127.0.0.1.
// No user is given: the image's own USER applies, which is what is checked.
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'

/**
 * Starts `command` (default: the image's CMD, given explicitly because `buildah run` has no default)
 * in a new working container of `image`, or in `container` when given.
 */
export function startContainer (image, { env = {}, volumes = [], command = ['node', 'dist/src/server.js'], container } = {}) {
  const own = container === undefined
  const name = own ? execFileSync('buildah', ['from', image], { encoding: 'utf8' }).trim() : container
  const args = ['run', '--isolation=chroot', '--network=host']
  for (const [key, value] of Object.entries(env)) args.push('--env', `${key}=${value}`)
  for (const volume of volumes) args.push('--volume', volume)
  const child = spawn('buildah', [...args, name, '--', ...command], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk) => { output += chunk })
  child.stderr.on('data', (chunk) => { output += chunk })
  const exited = once(child, 'close').then(([code, signal]) => ({ code, signal }))
  return {
    container: name,
    exited,
    output: () => output,
    done: () => child.exitCode !== null || child.signalCode !== null,
    /** Signals the gateway as a container runtime signals PID 1: its pid is in its log lines (no PID namespace here). */
    signal (name) {
      const pid = output.match(/"pid":(\d+)/)?.[1]
      if (pid === undefined) throw new Error(`no pid in the gateway's log to signal:\n${output}`)
      process.kill(Number(pid), name)
    },
    async remove () {
      if (child.exitCode === null && child.signalCode === null) {
        // buildah does not pass a kill on to what it runs: the process itself is killed.
        const pid = output.match(/"pid":(\d+)/)?.[1]
        if (pid !== undefined) process.kill(Number(pid), 'SIGKILL')
        child.kill('SIGKILL')
        await exited
      }
      if (own) execFileSync('buildah', ['rm', name], { stdio: 'ignore' })
    }
  }
}
