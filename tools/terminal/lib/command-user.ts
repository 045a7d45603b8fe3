// Who a command runs as. A gateway running as root (many containers, `sudo npm start`) runs its
// commands as terminal.user instead (65534, nobody, by default): a root command could plant a
// setuid-root file in the workspace, read root's files wherever the sandbox shows them, and the
// kernel does not apply the process limit to root. The switch is made by setpriv(1) (util-linux,
// like prlimit) as the last step before the shell, after the sandbox and the limits are set up by
// root; it is a plain setuid, so it needs no user namespace and works where those are forbidden.
//
// The workspace then has to be that user's: before each command it is handed over (chown -R, see
// handOverArgv). Files the command makes are the user's on the host too; the gateway, being root,
// still reads and writes them with the file tools, whose new files are root's until the next command.
import { execFile } from 'node:child_process'
import { constants } from 'node:fs'
import { access } from 'node:fs/promises'

export interface UserConfig {
  uid: number
  gid: number
  required: boolean
}

export type CommandUser =
  /** The gateway is not root: commands run as its own user. */
  | { kind: 'same' }
  /** Root: commands are switched to uid:gid by `argv` (ending with `--`). */
  | { kind: 'switch', uid: number, gid: number, argv: string[] }
  /** Root, the switch cannot be made and terminal.user.required is false: commands run as root. */
  | { kind: 'root', note: string }
  /** Root, the switch cannot be made: no command may run. */
  | { kind: 'unavailable', reason: string }

const SETPRIV_PATHS = ['/usr/bin/setpriv', '/bin/setpriv']
const PROBE_TIMEOUT_MS = 5000

let found: Promise<string | undefined> | undefined

/** The setpriv binary, looked up once (in the system folders the sandbox shows too). */
export function findSetpriv (): Promise<string | undefined> {
  found ??= (async () => {
    for (const path of SETPRIV_PATHS) {
      try {
        await access(path, constants.X_OK)
        return path
      } catch {}
    }
    return undefined
  })()
  return found
}

/**
 * The command line prefix that runs what follows as uid:gid, with no supplementary group, no
 * capability left and no_new_privs (unconfined too, a setuid program of the host then gains nothing).
 */
export function userArgv (setpriv: string, uid: number, gid: number): string[] {
  return [setpriv, `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--inh-caps=-all', '--no-new-privs', '--']
}

/**
 * The prefix that gives `workspace` to uid:gid and then runs what follows, run as root before the
 * switch (inside the sandbox, where a link can lead only to read-only or private mounts). GNU
 * chown -R walks by folder descriptors and changes links themselves (-h), so an entry swapped for a
 * link while it walks is not followed; a hard link to a file outside cannot be made inside the
 * sandbox (another mount), nor, unconfined, to a file the user may not write (fs.protected_hardlinks).
 * chown also clears any setuid or setgid bit of a file it hands over. A failure (an entry removed
 * while it walks) does not stop the command.
 */
export function handOverArgv (uid: number, gid: number, workspace: string): string[] {
  return ['/bin/sh', '-c', 'chown -R -h -f -- "$0" "$1"; shift; exec "$@"', `${uid}:${gid}`, workspace]
}

const probes = new Map<string, Promise<string | null>>()

/** Null when `setpriv` can switch to uid:gid here (tried once per process and user); else why not. */
function probe (setpriv: string, uid: number, gid: number): Promise<string | null> {
  const key = `${setpriv}\0${uid}:${gid}`
  let answer = probes.get(key)
  if (answer === undefined) {
    answer = new Promise((resolve) => {
      execFile(setpriv, [...userArgv(setpriv, uid, gid), '/bin/sh', '-c', 'test "$(id -u):$(id -g)" = "$0"', `${uid}:${gid}`],
        { timeout: PROBE_TIMEOUT_MS, env: {}, cwd: '/' },
        (err, _stdout, stderr) => {
          const code = err?.code
          resolve(err === null ? null : (stderr.trim() || (typeof code === 'number' ? `setpriv exited with ${code}` : err.message)).slice(0, 200))
        })
    })
    probes.set(key, answer)
  }
  return answer
}

/** Who commands run as under `config`; `setpriv` is where to find setpriv (found on the system unless given). */
export async function resolveCommandUser (config: UserConfig, setpriv?: string): Promise<CommandUser> {
  if (process.getuid?.() !== 0) return { kind: 'same' }
  const binary = setpriv ?? await findSetpriv()
  const failure = binary === undefined ? 'setpriv (util-linux) is not installed' : await probe(binary, config.uid, config.gid)
  if (binary !== undefined && failure === null) return { kind: 'switch', uid: config.uid, gid: config.gid, argv: userArgv(binary, config.uid, config.gid) }
  const why = `the gateway runs as root and commands cannot be run as uid ${config.uid} (terminal.user): ${failure}`
  if (config.required) return { kind: 'unavailable', reason: `${why}; fix that, run the gateway as an unprivileged user, or set terminal.user.required: false to run commands as root` }
  return { kind: 'root', note: `commands run as root (${why}; terminal.user.required is false): files they make in the workspace are root's, setuid bits included` }
}
