// A container of a rendered Deployment run on this machine the way its pod runs it: under bubblewrap
// the whole file system is read-only (readOnlyRootFilesystem), except the container's volumes, which
// are folders under `root` (an emptyDir empty, a ConfigMap its files, read-only where the mount says
// so). Its environment is the manifest's, the paths on a volume moved under `root` too.
import { spawn } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ensureBubblewrap } from './bubblewrap.ts'
import type { K8sObject } from './kustomize.ts'
import { containerOf, environmentOf, find, templateOf } from './pod.ts'
import type { Exit, ServerProcess } from './server-process.ts'

interface TestContext { after: (fn: () => Promise<void> | void) => void }

export interface PodProcess extends ServerProcess {
  /** The manifest's environment, and the one the process got (paths under `root`). */
  podEnv: Record<string, string>
  env: Record<string, string>
}

/**
 * Starts `command` (the program of the container's image) as `container` of `deployment`; `env`
 * overrides the manifest's last (loopback addresses, free ports). The process is killed after the test.
 */
export async function runInPod (t: TestContext, objects: K8sObject[], deployment: string, container: string, root: string, command: string[], env: Record<string, string> = {}): Promise<PodProcess> {
  ensureBubblewrap()
  const { spec } = templateOf(find(objects, 'Deployment', deployment))
  const mounts = containerOf(find(objects, 'Deployment', deployment), container).volumeMounts ?? []
  // --die-with-parent: a test that kills bwrap kills what runs in it (no PID namespace to take it along).
  const sandbox = ['--die-with-parent', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc']
  for (const mount of mounts) {
    const folder = join(root, mount.mountPath)
    await mkdir(folder, { recursive: true })
    sandbox.push(mount.readOnly === true ? '--ro-bind' : '--bind', folder, folder)
    const configMap = spec.volumes?.find((v) => v.name === mount.name)?.configMap
    if (configMap === undefined) continue
    const { data } = find(objects, 'ConfigMap', configMap.name) as K8sObject & { data: Record<string, string> }
    for (const [file, text] of Object.entries(data)) await writeFile(join(folder, file), text)
  }
  const onMount = (value: string): boolean => mounts.some((m) => value === m.mountPath || value.startsWith(`${m.mountPath}/`))
  const podEnv = environmentOf(objects, containerOf(find(objects, 'Deployment', deployment), container))
  const processEnv: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root }
  for (const [name, value] of Object.entries(podEnv)) processEnv[name] = onMount(value) ? join(root, value) : value
  Object.assign(processEnv, env)

  const child = spawn('bwrap', [...sandbox, '--chdir', root, '--', ...command], { env: processEnv, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  t.after(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGKILL')
    await exited
  })
  return { child, stdout: () => stdout, stderr: () => stderr, exited, podEnv, env: processEnv }
}
