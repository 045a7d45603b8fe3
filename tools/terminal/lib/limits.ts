// Resource limits of one command: memory, processes, CPU time and file size, set with prlimit(1) on
// the shell the command runs in, so every process it starts inherits them. The data segment
// (RLIMIT_DATA) bounds what malloc and anonymous mappings take, without counting the address space
// that runtimes such as V8, Go or WebAssembly reserve and never touch.
import { constants } from 'node:fs'
import { access } from 'node:fs/promises'

export interface CommandLimits {
  memoryBytes: number
  processes: number
  cpuSeconds: number
  fileSizeBytes: number
}

const PRLIMIT_PATHS = ['/usr/bin/prlimit', '/bin/prlimit']

let found: Promise<string | undefined> | undefined

/** The prlimit binary, looked up once (it lives in the system folders the sandbox shows too). */
export function findPrlimit (): Promise<string | undefined> {
  found ??= (async () => {
    for (const path of PRLIMIT_PATHS) {
      try {
        await access(path, constants.X_OK)
        return path
      } catch {}
    }
    return undefined
  })()
  return found
}

/** The command line prefix that starts what follows under `limits`. */
export function limitsArgv (prlimit: string, limits: CommandLimits): string[] {
  return [
    prlimit,
    `--data=${limits.memoryBytes}`,
    `--nproc=${limits.processes}`,
    `--cpu=${limits.cpuSeconds}`,
    `--fsize=${limits.fileSizeBytes}`,
    // No core files: a crash must not write the command's memory into the workspace.
    '--core=0',
    '--'
  ]
}

/** Why a limit does not hold for commands that run as root (`asRoot`), for GET /tools; undefined when all do. */
export function limitsCaveat (asRoot: boolean): string | undefined {
  // The kernel exempts the root user from RLIMIT_NPROC, whatever its capabilities.
  if (asRoot) return 'commands run as root, and the kernel does not apply the process limit (terminal.limits.processes) to root: let them run as terminal.user, or run the gateway as an unprivileged user, for it to hold'
  return undefined
}
