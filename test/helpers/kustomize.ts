// Renders the kustomizations of deploy/kubernetes with `kubectl kustomize`, offline. The kubectl is
// KUBECTL when set, else the one on PATH, else Debian's `kubernetes-client` (kubectl 1.20, kustomize
// v2: the oldest renderer the manifests are written for), downloaded once into a cache folder and
// unpacked there: `apt-get install` would conflict with a `kubectl` package, so it is not installed.
// When it cannot be had the tests fail, saying why, rather than skip.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseAllDocuments } from 'yaml'

export interface K8sObject {
  apiVersion: string
  kind: string
  metadata: { name: string, labels?: Record<string, string> }
  [field: string]: unknown
}

const CACHE = join(tmpdir(), 'tool-gateway-kubectl-debian')
const CACHED_KUBECTL = join(CACHE, 'root', 'usr', 'bin', 'kubectl')

function onPath (command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** apt-get download, then dpkg -x into the cache; flock keeps parallel test files from racing. */
function unpackDebianKubectl (): void {
  mkdirSync(CACHE, { recursive: true })
  const sudo = process.getuid?.() === 0 ? '' : 'sudo -n '
  // A fresh machine may have no package lists: update once, then download again.
  const script = [
    `test -x '${CACHED_KUBECTL}' && exit 0`,
    `cd '${CACHE}' && rm -f *.deb`,
    `apt-get download kubernetes-client || { ${sudo}apt-get update -qq && apt-get download kubernetes-client; }`,
    // Moved into place whole, so that a run cut short leaves no half-unpacked kubectl to be trusted.
    'rm -rf root.partial root && dpkg -x kubernetes-client_*.deb root.partial && mv root.partial root && rm -f *.deb'
  ].join('\n')
  try {
    execFileSync('flock', [join(CACHE, '.lock'), 'sh', '-ec', script], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000 })
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim() ?? ''
    throw new Error(`no kubectl on PATH and Debian's kubernetes-client could not be fetched (set KUBECTL=/path/to/kubectl): ${stderr || (err as Error).message}`)
  }
  if (!existsSync(CACHED_KUBECTL)) throw new Error(`kubernetes-client unpacked without usr/bin/kubectl: ${readdirSync(CACHE).join(', ')}`)
}

let chosen: string | undefined

/** The kubectl the tests render with (see the top of this file). */
export function kubectl (): string {
  if (chosen !== undefined) return chosen
  if (process.env.KUBECTL) chosen = process.env.KUBECTL
  else if (onPath('kubectl')) chosen = 'kubectl'
  else {
    unpackDebianKubectl()
    chosen = CACHED_KUBECTL
  }
  return chosen
}

/** `kubectl kustomize dir` as objects; kustomize's deprecation warnings (stderr) are ignored. */
export function render (dir: string): K8sObject[] {
  let text: string
  try {
    text = execFileSync(kubectl(), ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 })
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim() ?? ''
    throw new Error(`${kubectl()} kustomize ${dir} failed: ${stderr || (err as Error).message}`)
  }
  const objects: K8sObject[] = []
  for (const document of parseAllDocuments(text)) {
    if (document.errors.length > 0) throw new Error(`kustomize output of ${dir} is not YAML: ${document.errors[0].message}`)
    const value = document.toJS() as K8sObject | null
    if (value !== null) objects.push(value)
  }
  return objects
}

/** The kubectl's client version line, for the test's name. */
export function kubectlVersion (): string {
  const out = execFileSync(kubectl(), ['version', '--client'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
  return /GitVersion:"(v[^"]+)"|Client Version: (v\d\S*)/.exec(out)?.slice(1).find(Boolean) ?? out.trim()
}
