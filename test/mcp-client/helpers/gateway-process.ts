// The real gateway (src/server.ts) as a child process, for tests whose failure mode is a blocked
// event loop: the test process stays free to notice it, and the child is killed whatever happens.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { withTimeout } from '../../../src/shared/timers.ts'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
// Generous: the child strips the types of every module it loads, on a possibly busy machine.
const START_TIMEOUT_MS = 30_000

interface TestContext { after: (fn: () => Promise<void> | void) => void }

export interface GatewayProcess {
  base: string
  output: () => string
  /** The process, to signal it (SIGHUP reloads). */
  child: ChildProcess
}

/** Starts the gateway on a free loopback port with `configFile`, in `dir` (no built-in tools). */
export async function startGatewayProcess (t: TestContext, dir: string, configFile: string): Promise<GatewayProcess> {
  await mkdir(join(dir, 'tools'), { recursive: true })
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    TOOLS_DIR: join(dir, 'tools'),
    WORKSPACE_ROOT: join(dir, 'workspace'),
    STATE_DIR: join(dir, 'state'),
    GATEWAY_CONFIG: configFile,
    PORT: '0'
  }
  const child = spawn(process.execPath, [join(ROOT, 'src', 'server.ts')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  const port = new Promise<number>((resolve, reject) => {
    const look = (): void => {
      const match = /Server listening at http:\/\/[^\s"]+:(\d+)/.exec(output)
      if (match) resolve(Number(match[1]))
    }
    child.stdout.on('data', look)
    child.once('exit', (code) => reject(new Error(`the gateway exited (${code}) before listening:\n${output}`)))
  })
  const listening = await withTimeout(port, START_TIMEOUT_MS, () => { throw new Error(`the gateway did not listen within ${START_TIMEOUT_MS} ms:\n${output}`) })
  return { base: `http://127.0.0.1:${listening}`, output: () => output, child }
}
