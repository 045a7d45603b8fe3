// Reading rendered Kubernetes objects as the kubelet would: the pod template of a Deployment, a
// container's environment with its Secrets applied, which port a probe or a Service reaches.
import type { K8sObject } from './kustomize.ts'

export interface Probe { httpGet?: { path: string, port: number | string }, exec?: { command: string[] }, periodSeconds?: number, failureThreshold?: number }
export interface Mount { name: string, mountPath: string, readOnly?: boolean }
export interface SecurityContext {
  runAsNonRoot?: boolean
  runAsUser?: number
  readOnlyRootFilesystem?: boolean
  allowPrivilegeEscalation?: boolean
  capabilities?: { drop?: string[] }
  seccompProfile?: { type: string }
}
export interface Container {
  name: string
  image: string
  command?: string[]
  args?: string[]
  ports?: Array<{ name?: string, containerPort: number }>
  env?: Array<{ name: string, value?: string }>
  envFrom?: Array<{ secretRef?: { name: string }, configMapRef?: { name: string } }>
  startupProbe?: Probe
  livenessProbe?: Probe
  readinessProbe?: Probe
  lifecycle?: { preStop?: { exec?: { command: string[] } } }
  resources?: { requests?: Record<string, string>, limits?: Record<string, string> }
  securityContext?: SecurityContext
  volumeMounts?: Mount[]
}
export interface Volume { name: string, emptyDir?: { sizeLimit?: string }, configMap?: { name: string } }
export interface PodSpec {
  containers: Container[]
  volumes?: Volume[]
  securityContext?: SecurityContext
  terminationGracePeriodSeconds?: number
  automountServiceAccountToken?: boolean
}
export interface Template { metadata: { labels: Record<string, string>, annotations?: Record<string, string> }, spec: PodSpec }

/** The object of this kind and name; fails naming what was there instead. */
export function find (objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name)
  if (found === undefined) throw new Error(`no ${kind} ${name} among ${objects.map((o) => `${o.kind} ${o.metadata.name}`).join(', ')}`)
  return found
}

/** A generated ConfigMap or Secret, whose name ends in a content hash. */
export function generated (objects: K8sObject[], kind: string, prefix: string): K8sObject {
  const found = objects.filter((o) => o.kind === kind && o.metadata.name.startsWith(`${prefix}-`))
  if (found.length !== 1) throw new Error(`expected one ${kind} ${prefix}-<hash>, found ${found.length}`)
  return found[0]
}

export function templateOf (deployment: K8sObject): Template {
  return (deployment.spec as { template: Template }).template
}

export function containerOf (deployment: K8sObject, name: string): Container {
  const container = templateOf(deployment).spec.containers.find((c) => c.name === name)
  if (container === undefined) throw new Error(`Deployment ${deployment.metadata.name} has no container ${name}`)
  return container
}

/** True when every label the selector asks for is on `labels`. */
export function selects (selector: Record<string, string> | undefined, labels: Record<string, string>): boolean {
  if (selector === undefined || Object.keys(selector).length === 0) return false
  return Object.entries(selector).every(([key, value]) => labels[key] === value)
}

/** The container port a probe or a Service's targetPort names (by name or number). */
export function portNumber (container: Container, port: number | string): number | undefined {
  if (typeof port === 'number') return container.ports?.some((p) => p.containerPort === port) ? port : undefined
  return container.ports?.find((p) => p.name === port)?.containerPort
}

/** The container's environment: its Secrets' data (envFrom), then its own `env`, as Kubernetes orders them. */
export function environmentOf (objects: K8sObject[], container: Container): Record<string, string> {
  const env: Record<string, string> = {}
  for (const source of container.envFrom ?? []) {
    if (source.secretRef === undefined) throw new Error(`container ${container.name}: only secretRef is read here`)
    const secret = find(objects, 'Secret', source.secretRef.name) as K8sObject & { data?: Record<string, string> }
    for (const [key, value] of Object.entries(secret.data ?? {})) env[key] = Buffer.from(value, 'base64').toString('utf8')
  }
  for (const { name, value } of container.env ?? []) {
    if (value === undefined) throw new Error(`container ${container.name}: env ${name} has no plain value`)
    env[name] = value
  }
  return env
}

/** The volume mounted at `path` or at a folder above it. */
export function volumeAt (spec: PodSpec, container: Container, path: string): Volume | undefined {
  const mounts = (container.volumeMounts ?? []).filter((m) => path === m.mountPath || path.startsWith(`${m.mountPath.replace(/\/$/, '')}/`))
  const deepest = mounts.sort((a, b) => b.mountPath.length - a.mountPath.length)[0]
  return deepest === undefined ? undefined : spec.volumes?.find((v) => v.name === deepest.name)
}

const BINARY_UNITS: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 }

/** A Kubernetes quantity of bytes ("64Mi", "1Gi", "1000") as a number. */
export function bytesOf (quantity: string): number {
  const match = /^(\d+)(Ki|Mi|Gi|Ti)?$/.exec(quantity)
  if (match === null) throw new Error(`not a byte quantity this test reads: ${quantity}`)
  return Number(match[1]) * (match[2] === undefined ? 1 : BINARY_UNITS[match[2]])
}
