// The Kubernetes manifests of deploy/kubernetes, rendered with the real `kubectl kustomize` (see
// helpers/kustomize.ts for which one), every object checked against the Kubernetes schemas
// (kubernetes-models, offline), then read for what keeps the gateway up and safe: probes on its
// port, non-root and a read-only root, every path it writes on an emptyDir, a config file the
// gateway itself accepts, no start with the placeholder key, Redis wired by the overlay.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Deployment } from 'kubernetes-models/apps/v1/Deployment'
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler'
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy'
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget'
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap'
import { Secret } from 'kubernetes-models/v1/Secret'
import { Service } from 'kubernetes-models/v1/Service'
import { loadConfig } from '../src/config/load.ts'
import { assertProtectedMode } from '../src/config/protected-mode.ts'
import type { GatewayConfig } from '../src/config/schema.ts'
import { ensureDebianCommand } from './helpers/debian-package.ts'
import { kubectlVersion, render, type K8sObject } from './helpers/kustomize.ts'
import { runInPod, type PodProcess } from './helpers/pod-sandbox.ts'
import { freePort } from './helpers/free-port.ts'
import { answersPing } from './helpers/redis-server.ts'
import { EXIT_TIMEOUT_MS, listeningPort, within } from './helpers/server-process.ts'
import { bytesOf, containerOf, environmentOf, find, generated, portNumber, selects, templateOf, volumeAt, type Container } from './helpers/pod.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BASE = join(ROOT, 'deploy', 'kubernetes', 'base')
const REDIS = join(ROOT, 'deploy', 'kubernetes', 'overlays', 'redis')
// The Dockerfile's USER node: uid 1000 in the node images (scripts/container-check.mjs checks it).
const IMAGE_UID = 1000
// src/server.ts gives close-with-grace the drain time plus this before the process exits on its own.
const EXIT_MARGIN_MS = 5_000

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')

interface TestContext { after: (fn: () => Promise<void> | void) => void }
type Model = new (data: never) => { validate: () => void }

// Every kind the manifests may hold, by apiVersion and kind; anything else fails the test.
const MODELS: Record<string, Model> = {
  'apps/v1 Deployment': Deployment,
  'v1 Service': Service,
  'v1 ConfigMap': ConfigMap,
  'v1 Secret': Secret,
  'autoscaling/v2 HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1 NetworkPolicy': NetworkPolicy
}

function validate (object: K8sObject): void {
  const Model = MODELS[`${object.apiVersion} ${object.kind}`]
  if (Model === undefined) throw new Error(`no schema to validate ${object.apiVersion} ${object.kind} ${object.metadata?.name} against`)
  new Model(withoutBase64LineBreaks(object) as never).validate()
}

/**
 * kustomize v5 breaks a Secret's long base64 values into lines (a 64-digit digest is 88 characters);
 * the API server's decoder (Go's encoding/base64) skips line breaks, the schema's "byte" format does not.
 */
function withoutBase64LineBreaks (object: K8sObject): K8sObject {
  if (object.kind !== 'Secret' || object.data === undefined) return object
  const data = Object.fromEntries(Object.entries(object.data as Record<string, string>).map(([key, value]) => [key, value.replace(/[\r\n]/g, '')]))
  return { ...object, data }
}

let baseObjects: K8sObject[] | undefined
let redisObjects: K8sObject[] | undefined
const base = (): K8sObject[] => (baseObjects ??= render(BASE))
const withRedis = (): K8sObject[] => (redisObjects ??= render(REDIS))

async function tempDir (t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-k8s-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return dir
}

// What an operator puts in the Secret in place of the base's placeholder (docs/operations.md, "On Kubernetes").
const OPERATOR_SECRET = { GATEWAY_API_KEY_SHA256: sha256('an-operator-key') }

/**
 * The gateway's config as its pod would load it: the pod's env (its Secret applied, then
 * `secret` over it), the ConfigMap's file.
 */
async function podConfig (t: TestContext, objects: K8sObject[], secret: Record<string, string> = {}): Promise<{ config: GatewayConfig, env: Record<string, string> }> {
  const gateway = containerOf(find(objects, 'Deployment', 'tool-gateway'), 'gateway')
  const env = { ...environmentOf(objects, gateway), ...secret }
  const data = (generated(objects, 'ConfigMap', 'tool-gateway-config') as K8sObject & { data: Record<string, string> }).data
  const file = env.GATEWAY_CONFIG.split('/').pop()!
  assert.ok(typeof data[file] === 'string', `the ConfigMap holds no ${file} (GATEWAY_CONFIG=${env.GATEWAY_CONFIG})`)
  const dir = await tempDir(t)
  await writeFile(join(dir, file), data[file])
  return { config: await loadConfig({ env: { ...env, GATEWAY_CONFIG: join(dir, file) }, cwd: '/' }), env }
}

/** An operator's overlay of the base, as docs/operations.md shows it: their image and their key's digest. */
async function operatorOverlay (t: TestContext, key: string, over = BASE): Promise<K8sObject[]> {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'kustomization.yaml'), [
    'apiVersion: kustomize.config.k8s.io/v1beta1',
    'kind: Kustomization',
    'bases:',
    `  - ${relative(dir, over)}`,
    'images:',
    '  - name: tool-gateway',
    '    newName: registry.example.com/tool-gateway',
    '    newTag: "0.1.0"',
    'secretGenerator:',
    '  - name: tool-gateway-keys',
    '    behavior: replace',
    '    literals:',
    `      - GATEWAY_API_KEY_SHA256=${sha256(key)}`,
    ''
  ].join('\n'))
  return render(dir)
}

test(`the base and the redis overlay render (${kubectlVersion()}) to objects the Kubernetes schemas accept`, () => {
  const kinds = (objects: K8sObject[]): string[] => objects.map((o) => `${o.kind} ${o.metadata.name.replace(/-[a-z0-9]{10}$/, '-<hash>')}`).sort()
  assert.deepEqual(kinds(base()), [
    'ConfigMap tool-gateway-config-<hash>', 'Deployment tool-gateway', 'HorizontalPodAutoscaler tool-gateway',
    'PodDisruptionBudget tool-gateway', 'Secret tool-gateway-keys-<hash>', 'Service tool-gateway'
  ])
  assert.deepEqual(kinds(withRedis()), [...kinds(base()), 'Deployment tool-gateway-redis', 'NetworkPolicy tool-gateway-redis', 'Service tool-gateway-redis'].sort())
  for (const object of [...base(), ...withRedis()]) validate(object)
})

test('the schema check rejects a broken object, and a kind it has no schema for', () => {
  const broken = structuredClone(find(base(), 'Deployment', 'tool-gateway'))
  containerOf(broken, 'gateway').ports![0].containerPort = 'http' as never
  assert.throws(() => validate(broken), /containerPort must be integer/)
  assert.throws(() => validate({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } }), /no schema to validate v1 Pod p/)
})

test('gateway: probes on /healthz and /readyz reach its admin port (outside the traffic limits), the Service targets the traffic port only', async (t) => {
  const deployment = find(base(), 'Deployment', 'tool-gateway')
  const gateway = containerOf(deployment, 'gateway')
  const { config } = await podConfig(t, base(), OPERATOR_SECRET)
  assert.equal(portNumber(gateway, 'http'), config.port)
  assert.ok(config.http.adminPort !== undefined && config.http.adminPort !== config.port, 'the manifest sets ADMIN_PORT')
  assert.equal(portNumber(gateway, 'admin'), config.http.adminPort)
  for (const [probe, path] of [['startupProbe', '/healthz'], ['livenessProbe', '/healthz'], ['readinessProbe', '/readyz']] as const) {
    const get = gateway[probe]?.httpGet
    assert.equal(get?.path, path, `${probe} path`)
    assert.equal(portNumber(gateway, get.port), config.http.adminPort, `${probe} port`)
  }
  const annotations = templateOf(deployment).metadata.annotations ?? {}
  assert.equal(Number(annotations['prometheus.io/port']), config.http.adminPort)
  const service = find(base(), 'Service', 'tool-gateway').spec as { selector: Record<string, string>, ports: Array<{ targetPort: number | string }> }
  assert.ok(selects(service.selector, templateOf(deployment).metadata.labels))
  assert.deepEqual(service.ports.map((port) => portNumber(gateway, port.targetPort)), [config.port])
})

test('every container runs as non-root on a read-only root, without privileges, with requests and limits', () => {
  for (const deployment of withRedis().filter((o) => o.kind === 'Deployment')) {
    const { spec } = templateOf(deployment)
    assert.equal(spec.automountServiceAccountToken, false, deployment.metadata.name)
    assert.equal(spec.securityContext?.runAsNonRoot, true, deployment.metadata.name)
    assert.equal(spec.securityContext?.seccompProfile?.type, 'RuntimeDefault', deployment.metadata.name)
    for (const container of spec.containers) {
      const where = `${deployment.metadata.name}/${container.name}`
      const security = container.securityContext ?? {}
      // By number: with runAsNonRoot alone the kubelet refuses an image whose USER is a name (node).
      const uid = security.runAsUser ?? spec.securityContext?.runAsUser
      assert.ok(Number.isInteger(uid) && uid! > 0, `${where}: a numeric non-root runAsUser, got ${uid}`)
      assert.equal(security.readOnlyRootFilesystem, true, where)
      assert.equal(security.allowPrivilegeEscalation, false, where)
      assert.deepEqual(security.capabilities?.drop, ['ALL'], where)
      for (const kind of ['requests', 'limits'] as const) {
        assert.ok(container.resources?.[kind]?.cpu && container.resources[kind].memory, `${where}: cpu and memory ${kind}`)
      }
      assert.ok(container.livenessProbe && container.readinessProbe, `${where}: liveness and readiness probes`)
    }
  }
  assert.equal(containerOf(find(base(), 'Deployment', 'tool-gateway'), 'gateway').securityContext?.runAsUser, IMAGE_UID)
})

test('every path the gateway writes is on an emptyDir, and the workspace cap is below its size', async (t) => {
  const deployment = find(base(), 'Deployment', 'tool-gateway')
  const gateway = containerOf(deployment, 'gateway')
  const { config, env } = await podConfig(t, base(), OPERATOR_SECRET)
  // The file tools' workspace, the state folder (pins), and os.tmpdir() (the discovery cache).
  const writes = [config.workspaceRoot, config.stateDir, env.TMPDIR ?? '/tmp']
  for (const path of writes) {
    const volume = volumeAt(templateOf(deployment).spec, gateway, path)
    assert.ok(volume?.emptyDir !== undefined, `${path} is not on an emptyDir (${JSON.stringify(volume)})`)
  }
  const workspace = volumeAt(templateOf(deployment).spec, gateway, config.workspaceRoot)!
  assert.ok(config.workspaceMaxBytes < bytesOf(workspace.emptyDir!.sizeLimit!), 'workspaceMaxBytes must stay below the sizeLimit, or the kubelet evicts first')
})

test('the ConfigMap is mounted where GATEWAY_CONFIG points, the keys come from the Secret, and the drain fits the grace', async (t) => {
  const deployment = find(base(), 'Deployment', 'tool-gateway')
  const { spec } = templateOf(deployment)
  const gateway = containerOf(deployment, 'gateway')
  const configMap = generated(base(), 'ConfigMap', 'tool-gateway-config')
  const { config, env } = await podConfig(t, base(), OPERATOR_SECRET)
  const mountedFolder = env.GATEWAY_CONFIG.slice(0, env.GATEWAY_CONFIG.lastIndexOf('/'))
  const mount = gateway.volumeMounts?.find((m) => m.mountPath === mountedFolder)
  assert.equal(spec.volumes?.find((v) => v.name === mount?.name)?.configMap?.name, configMap.metadata.name)
  assert.equal(mount?.readOnly, true)

  const secret = generated(base(), 'Secret', 'tool-gateway-keys')
  assert.deepEqual(gateway.envFrom, [{ secretRef: { name: secret.metadata.name } }])
  assert.ok(config.auth.keys.length > 0 && config.auth.keys.every((key) => key.sha256 !== undefined))

  const preStop = gateway.lifecycle?.preStop?.exec?.command ?? []
  const pauseMs = preStop[0] === 'sleep' ? Number(preStop[1]) * 1000 : 0
  assert.ok(spec.terminationGracePeriodSeconds! * 1000 > pauseMs + config.http.shutdownGraceMs + EXIT_MARGIN_MS,
    `terminationGracePeriodSeconds ${spec.terminationGracePeriodSeconds} s does not cover ${pauseMs} + ${config.http.shutdownGraceMs} + ${EXIT_MARGIN_MS} ms`)
})

test('the HPA scales the Deployment from 2, and the PodDisruptionBudget covers its pods', () => {
  const deployment = find(base(), 'Deployment', 'tool-gateway')
  const hpa = find(base(), 'HorizontalPodAutoscaler', 'tool-gateway').spec as { scaleTargetRef: Record<string, string>, minReplicas: number, maxReplicas: number, metrics: Array<{ resource?: { name: string } }> }
  assert.deepEqual(hpa.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name })
  assert.ok(hpa.minReplicas >= 2 && hpa.maxReplicas > hpa.minReplicas)
  assert.equal(hpa.metrics[0].resource?.name, 'cpu')
  // The autoscaler owns the count; a `replicas` here would reset it on every apply.
  assert.equal((deployment.spec as { replicas?: number }).replicas, undefined)
  const pdb = find(base(), 'PodDisruptionBudget', 'tool-gateway').spec as { selector: { matchLabels: Record<string, string> }, maxUnavailable?: number, minAvailable?: number }
  assert.ok(selects(pdb.selector.matchLabels, templateOf(deployment).metadata.labels))
  assert.ok(pdb.maxUnavailable === 1 || pdb.minAvailable === 1)
})

test('the base Secret is a placeholder the gateway refuses to start with; an operator\'s key digest passes protected mode', async (t) => {
  await assert.rejects(podConfig(t, base()), /auth\.keys\.0\.sha256 \(key "default"\): must be 64 hexadecimal characters/)
  const objects = await operatorOverlay(t, 'an-operator-key')
  assert.equal(containerOf(find(objects, 'Deployment', 'tool-gateway'), 'gateway').image, 'registry.example.com/tool-gateway:0.1.0')
  const { config } = await podConfig(t, objects)
  assert.equal(config.host, '0.0.0.0')
  assert.equal(config.auth.keys[0].sha256, sha256('an-operator-key'))
  assertProtectedMode(config)
})

test('redis overlay: REDIS_URL names the Redis Service and port; Redis keeps nothing on disk and admits only the gateway', async (t) => {
  const objects = withRedis()
  const gatewayPods = templateOf(find(objects, 'Deployment', 'tool-gateway')).metadata.labels
  const redisDeployment = find(objects, 'Deployment', 'tool-gateway-redis')
  const redisPods = templateOf(redisDeployment).metadata.labels
  const redis: Container = containerOf(redisDeployment, 'redis')
  const service = find(objects, 'Service', 'tool-gateway-redis')
  const { selector, ports } = service.spec as { selector: Record<string, string>, ports: Array<{ port: number, targetPort: number | string }> }

  // Read as the gateway reads it: its config loader checks REDIS_URL too.
  const url = new URL((await podConfig(t, objects, OPERATOR_SECRET)).config.redis.url!)
  assert.equal(url.protocol, 'redis:')
  assert.equal(url.hostname, service.metadata.name)
  assert.equal(Number(url.port), ports[0].port)
  assert.equal(portNumber(redis, ports[0].targetPort), 6379)
  assert.ok(selects(selector, redisPods) && !selects(selector, gatewayPods))
  assert.ok(!selects((find(objects, 'Service', 'tool-gateway').spec as { selector: Record<string, string> }).selector, redisPods))

  assert.match(redis.args!.join(' '), /--save {2}--appendonly no/)
  // The NetworkPolicy below, not protected mode, decides who connects: protected mode would refuse the gateway's pods.
  assert.match(redis.args!.join(' '), /--protected-mode no/)
  assert.ok(volumeAt(templateOf(redisDeployment).spec, redis, '/data')?.emptyDir !== undefined)
  for (const probe of [redis.livenessProbe, redis.readinessProbe]) assert.match(probe?.exec?.command.join(' ') ?? '', /redis-cli ping/)

  const policy = find(objects, 'NetworkPolicy', 'tool-gateway-redis').spec as {
    podSelector: { matchLabels: Record<string, string> }, ingress: Array<{ from: Array<{ podSelector: { matchLabels: Record<string, string> } }>, ports: Array<{ port: number }> }>
  }
  assert.ok(selects(policy.podSelector.matchLabels, redisPods))
  assert.ok(selects(policy.ingress[0].from[0].podSelector.matchLabels, gatewayPods))
  assert.equal(policy.ingress[0].ports[0].port, 6379)
})

/** The gateway container of `objects` started as its pod would (loopback, a free port), and its base URL. */
async function startGatewayPod (t: TestContext, objects: K8sObject[], env: Record<string, string> = {}): Promise<{ pod: PodProcess, url: string, admin: string, root: string }> {
  const root = await tempDir(t)
  // Loopback and a free port: a test opens no port to the network (protected mode is checked above).
  const adminPort = await freePort()
  const pod = await runInPod(t, objects, 'tool-gateway', 'gateway', root, [process.execPath, join(ROOT, 'src', 'server.ts')], { HOST: '127.0.0.1', PORT: '0', ADMIN_PORT: String(adminPort), ...env })
  return { pod, url: `http://127.0.0.1:${await listeningPort(pod)}`, admin: `http://127.0.0.1:${adminPort}`, root }
}

/** SIGTERM, as the kubelet sends it (bubblewrap passes no signal on: the gateway's own pid, from its log). */
async function stopGatewayPod (pod: PodProcess): Promise<void> {
  process.kill(Number(/"pid":(\d+)/.exec(pod.stdout())![1]), 'SIGTERM')
  const exit = await within(pod.exited, EXIT_TIMEOUT_MS, 'waiting for the gateway to exit', pod.stdout)
  assert.equal(exit.code, 0, pod.stdout() + pod.stderr())
}

test('the real gateway starts as the operator overlay\'s pod, on a read-only root: ready, the key enforced, writes on the emptyDirs', async (t) => {
  const key = 'an-operator-key'
  const { pod, url, admin, root } = await startGatewayPod(t, await operatorOverlay(t, key))
  assert.equal((await fetch(`${url}/readyz`)).status, 200)
  assert.equal((await fetch(`${admin}/readyz`)).status, 200)
  // The scrape needs no key there; on the traffic port it does.
  assert.equal((await fetch(`${admin}/metrics`)).status, 200)
  assert.equal((await fetch(`${url}/metrics`)).status, 401)
  assert.equal((await fetch(`${url}/definitions`)).status, 401)
  const authorization = `Bearer ${key}`
  assert.equal((await fetch(`${url}/definitions`, { headers: { authorization } })).status, 200)
  const written = await fetch(`${url}/dispatch/write_file`, {
    method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: '{"path":"note.txt","content":"on the emptyDir\\n"}'
  })
  assert.equal(written.status, 200, await written.text())
  assert.equal(await readFile(join(pod.env.WORKSPACE_ROOT, 'note.txt'), 'utf8'), 'on the emptyDir\n')
  await stopGatewayPod(pod)
  // The discovery cache went to TMPDIR, the other emptyDir (it fails soft: a read-only TMPDIR would leave none).
  const cache = join(root, pod.podEnv.TMPDIR, `tool-gateway-${process.getuid?.() ?? 'user'}`)
  assert.ok(existsSync(cache), `no discovery cache at ${cache}`)
})

test('redis overlay, run: Redis with the manifest\'s flags on a read-only root, the gateway connected to it, keys with a TTL', async (t) => {
  ensureDebianCommand('redis-server', ['--version'], 'redis-server')
  const key = 'an-operator-key'
  const objects = await operatorOverlay(t, key, REDIS)
  const redisPort = await freePort()
  const redis = containerOf(find(objects, 'Deployment', 'tool-gateway-redis'), 'redis')
  // The manifest's command and flags, on loopback and a free port instead of every address and 6379.
  const command = [...redis.command!, ...redis.args!, '--port', String(redisPort), '--bind', '127.0.0.1']
  const redisRoot = await tempDir(t)
  const redisPod = await runInPod(t, objects, 'tool-gateway-redis', 'redis', redisRoot, command)
  await answersPing(redisPort, Date.now() + 10_000).catch((err: Error) => { throw new Error(`${err.message}:\n${redisPod.stdout()}${redisPod.stderr()}`) })

  // REDIS_URL as the overlay sets it, its host and port moved to where this Redis listens.
  const redisUrl = new URL(environmentOf(objects, containerOf(find(objects, 'Deployment', 'tool-gateway'), 'gateway')).REDIS_URL)
  redisUrl.host = `127.0.0.1:${redisPort}`
  const { pod, url } = await startGatewayPod(t, objects, { REDIS_URL: redisUrl.href })
  const ready = await (await fetch(`${url}/readyz`)).json() as { ready: boolean, redis?: { connected: boolean } }
  assert.deepEqual([ready.ready, ready.redis?.connected], [true, true], JSON.stringify(ready))
  // A call with an Idempotency-Key leaves its record in Redis.
  const called = await fetch(`${url}/dispatch/read_file`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'k8s-test-1' }, body: '{"path":"absent.txt"}'
  })
  assert.ok(called.status < 500, await called.text())
  const cli = (...args: string[]): string => execFileSync('redis-cli', ['-p', String(redisPort), ...args], { encoding: 'utf8' }).trim()
  const keys = cli('--scan', '--pattern', 'tool-gateway:*').split('\n').filter(Boolean)
  assert.ok(keys.length > 0, 'the gateway wrote nothing to Redis')
  for (const stored of keys) assert.ok(Number(cli('pttl', stored)) > 0, `${stored} has no TTL: volatile-lru could never evict it`)
  await stopGatewayPod(pod)
  // SHUTDOWN is where a Redis configured to save would write its snapshot.
  cli('shutdown')
  assert.equal((await within(redisPod.exited, EXIT_TIMEOUT_MS, 'waiting for Redis to exit', redisPod.stdout)).code, 0)
  assert.deepEqual(readdirSync(join(redisRoot, '/data')), [], 'Redis wrote to /data')
})
