// Where commands run: in a bubblewrap sandbox when one can be made, else unconfined. The sandbox
// has its own PID namespace (the gateway and every other process are out of sight, so their
// /proc/<pid>/environ too, and everything inside dies with bwrap), its own network namespace (no
// network at all, not even the host's loopback), the system (/usr, /etc) read-only, the workspace
// read-write, and a private /tmp, /proc and /dev; the gateway's home, its code and its config file
// are not in it. Run as root, root inside keeps no capability, yet the kernel's own interfaces under
// /proc (sysctls: kernel.core_pattern names a program the kernel runs as root on the host) would stay
// writable and root-only files readable: those are mounted read-only, and the host's password hashes
// are covered by an empty file.
import { execFile } from 'node:child_process'
import { constants } from 'node:fs'
import { access, lstat, readlink, realpath } from 'node:fs/promises'
import { delimiter, isAbsolute, join, resolve, sep } from 'node:path'

export type SandboxMode = 'auto' | 'bwrap' | 'none'

export type Confinement =
  | { kind: 'bwrap', bwrap: string }
  /** Commands run as the gateway user, with `note` telling operators so. */
  | { kind: 'none', note: string }
  /** TERMINAL_SANDBOX=bwrap and bubblewrap cannot run: no command may start. */
  | { kind: 'unavailable', reason: string }

const UNCONFINED_RISK = 'a command can read whatever the gateway user can, the gateway\'s own environment and config file included (/proc)'
const PROBE_TIMEOUT_MS = 5000
/** Top-level names that are symlinks into /usr on a merged-/usr system, or folders of their own on an older one. */
const SYSTEM_ROOTS = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32']

/** Writable kernel settings and triggers inside a fresh /proc; read-only in the sandbox. */
const KERNEL_INTERFACES = ['/proc/sys', '/proc/sysrq-trigger', '/proc/irq', '/proc/bus', '/proc/fs', '/proc/acpi', '/proc/kcore', '/proc/timer_list']
/** Files of /etc that hold secrets of the host: covered by an empty file (a root command could read them). */
const HOST_SECRETS = ['/etc/shadow', '/etc/gshadow', '/etc/shadow-', '/etc/gshadow-', '/etc/sudoers', '/etc/security/opasswd']

async function hiddenSecrets (): Promise<string[]> {
  const args: string[] = []
  for (const path of HOST_SECRETS) {
    try {
      if ((await lstat(path)).isFile()) args.push('--ro-bind', '/dev/null', path)
    } catch {} // absent on this system
  }
  return args
}

// One probe per bwrap binary and user switch for the life of the process: whether namespaces can be
// made does not change while it runs (a restart picks up a newly installed bubblewrap).
const probes = new Map<string, Promise<string | null>>()

async function findOnPath (name: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!isAbsolute(dir)) continue
    const candidate = join(dir, name)
    try {
      await access(candidate, constants.X_OK)
      return candidate
    } catch {}
  }
  return undefined
}

/** Binds of the read-only system: /usr, /etc and the top-level links or folders beside /usr. */
async function systemArgs (): Promise<string[]> {
  const args = ['--ro-bind', '/usr', '/usr', '--ro-bind', '/etc', '/etc']
  for (const name of SYSTEM_ROOTS) {
    try {
      const info = await lstat(`/${name}`)
      if (info.isSymbolicLink()) args.push('--symlink', await readlink(`/${name}`), `/${name}`)
      else if (info.isDirectory()) args.push('--ro-bind', `/${name}`, `/${name}`)
    } catch {} // absent on this system
  }
  return args
}

/**
 * The namespaces and capabilities. A command that setpriv switches to terminal.user (the gateway
 * runs as root, command-user.ts) gets no user namespace: bwrap's, made as root, maps uid 0 alone, so
 * neither that switch nor the chown handing the workspace over could name another uid in it. Root
 * inside then keeps the capabilities those two need, which the switch drops with everything else:
 * chown and the two set-ids, and reading and searching folders that are the user's (a workspace of
 * mode 700, once handed over, is no longer root's: bwrap could not even enter it for the next
 * command). Any other command keeps none (a root one: no mknod and mount of the host's disk).
 */
function namespaceArgs (switchesUser: boolean): string[] {
  // PID, network, IPC, UTS (and user, where allowed) namespaces of its own.
  if (!switchesUser) return ['--unshare-all', '--cap-drop', 'ALL']
  return [
    '--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try',
    '--cap-drop', 'ALL', '--cap-add', 'CAP_CHOWN', '--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID', '--cap-add', 'CAP_DAC_READ_SEARCH'
  ]
}

/** The namespaces and the fresh system mounts, the same for the probe and for every command. */
async function baseArgs (switchesUser: boolean): Promise<string[]> {
  return [
    ...namespaceArgs(switchesUser),
    '--die-with-parent',
    '--new-session',
    ...await systemArgs(),
    '--proc', '/proc',
    ...KERNEL_INTERFACES.flatMap((path) => ['--ro-bind-try', path, path]),
    ...await hiddenSecrets(),
    '--dev', '/dev',
    // Writable by whoever the command runs as (bwrap makes them root's, 0755, when it runs as root).
    '--perms', '1777', '--tmpfs', '/dev/shm',
    '--perms', '1777', '--tmpfs', '/tmp'
  ]
}

/** Null when bwrap can make a sandbox here, and switch the user inside with `switchUser` when given; else why not (its own message). */
function probe (bwrap: string, switchUser: readonly string[]): Promise<string | null> {
  const key = [bwrap, ...switchUser].join('\0')
  let answer = probes.get(key)
  if (answer === undefined) {
    answer = baseArgs(switchUser.length > 0).then((args) => new Promise<string | null>((resolve) => {
      execFile(bwrap, [...args, '--', ...switchUser, '/bin/true'], { timeout: PROBE_TIMEOUT_MS, env: {}, cwd: '/' }, (err, _stdout, stderr) => {
        resolve(err === null ? null : (stderr.trim() || err.message).slice(0, 200))
      })
    }))
    probes.set(key, answer)
  }
  return answer
}

/** How commands run under `mode` on this machine; `switchUser` is the setpriv prefix of a gateway running as root (command-user.ts). */
export async function resolveConfinement (mode: SandboxMode, switchUser: readonly string[] = []): Promise<Confinement> {
  if (mode === 'none') return { kind: 'none', note: `unconfined: commands run without a sandbox (TERMINAL_SANDBOX=none); ${UNCONFINED_RISK}` }
  const bwrap = await findOnPath('bwrap')
  const failure = bwrap === undefined ? 'bwrap is not installed (not found on PATH)' : await probe(bwrap, switchUser)
  if (bwrap !== undefined && failure === null) return { kind: 'bwrap', bwrap }
  if (mode === 'bwrap') return { kind: 'unavailable', reason: `TERMINAL_SANDBOX=bwrap but bubblewrap cannot run: ${failure}` }
  return { kind: 'none', note: `unconfined: bubblewrap cannot run (${failure}); ${UNCONFINED_RISK}` }
}

function isInside (root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep)
}

/**
 * The gateway's config file, when the sandbox would show it (under /etc, /usr or the workspace):
 * then an empty, unreadable file is mounted over it. It is read from the gateway's own environment,
 * where the server found it.
 */
async function hiddenConfig (workspace: string): Promise<string[]> {
  const named = process.env.GATEWAY_CONFIG
  if (named === undefined || named === '') return []
  let real: string
  try {
    real = await realpath(resolve(process.cwd(), named))
  } catch {
    return []
  }
  const shown = ['/usr', '/etc', workspace].some((root) => isInside(root, real))
  return shown ? ['--ro-bind', '/dev/null', real] : []
}

/** The bwrap command line, up to the command itself, for a command in `cwd` inside `workspace` (both real paths). */
export async function sandboxArgv (bwrap: string, workspace: string, cwd: string, switchesUser = false): Promise<string[]> {
  return [
    bwrap,
    ...await baseArgs(switchesUser),
    '--bind', workspace, workspace,
    ...await hiddenConfig(workspace),
    // The root folder bwrap builds stays writable otherwise (a tmpfs, lost at the end, but still).
    '--remount-ro', '/',
    '--chdir', cwd,
    '--'
  ]
}
