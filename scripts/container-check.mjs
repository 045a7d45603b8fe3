// `npm run container:check`: builds the real image from the Dockerfile and runs it, with the engine
// this kind of machine has (Debian's podman and buildah, no Docker daemon; recipe in docs/operations.md,
// "Building the image without Docker"). It installs what it needs (apt-get, as root), makes the
// base image when missing (debootstrap + this project's Node 24), builds, then checks the image as
// an operator would run it:
//   1. configured as a `node` user image with a HEALTHCHECK;
//   2. with no config it refuses to serve on its 0.0.0.0 without keys;
//   3. with a mounted config (keys, a plugin) and a mounted workspace it serves: 401 without a key,
//      the plugin's tool listed, a file of the workspace read, a file written owned by uid 1000;
//   4. its own HEALTHCHECK command passes against it;
//   5. SIGTERM with a call in flight: the call finishes, the process exits 0.
// Sizes of the image and its layers are printed at the end (docs/operations.md quotes them).
// Plain JavaScript on purpose, like smoke-prod.mjs: it runs before anything is built.
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { chmod, chown, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildBaseImage, BASE_IMAGE, ensureEngine, imageExists } from './container/engine.mjs'
import { startContainer } from './container/run.mjs'

const REPO = fileURLToPath(new URL('..', import.meta.url))
const IMAGE = 'localhost/tool-gateway:check'
const NODE_UID = 1000
const KEY = `ci-key-${process.pid}-${Date.now()}`
const started = Date.now()

function step (message) {
  process.stdout.write(`container:check [${((Date.now() - started) / 1000).toFixed(1)}s] ${message}\n`)
}

function check (condition, message) {
  if (!condition) throw new Error(message)
}

async function run (command, args, options = {}) {
  step(`$ ${command} ${args.join(' ')}`)
  const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options })
  const [code, signal] = await once(child, 'close')
  check(code === 0, `\`${command} ${args.join(' ')}\` failed (exit ${code ?? signal})`)
}

function inspect (format) {
  return execFileSync('podman', ['image', 'inspect', IMAGE, '--format', format], { encoding: 'utf8' }).trim()
}

async function request (base, path, init = {}) {
  const response = await fetch(base + path, { ...init, signal: AbortSignal.timeout(init.timeoutMs ?? 10_000) })
  return { status: response.status, text: await response.text() }
}

function authorised (extra = {}) {
  return { authorization: `Bearer ${KEY}`, ...extra }
}

/** The mounted config folder: a key (from the environment), a plugin of its own, a shipped one. */
async function writeConfig (folder) {
  await mkdir(folder, { recursive: true })
  await writeFile(join(folder, 'gateway.yaml'), [
    'auth:',
    '  keys:',
    '    - name: ci',
    '      env: CI_GATEWAY_KEY',
    'plugins:',
    '  - module: ./ci-tools.mjs',
    '    required: true',
    '  - module: tool-gateway/plugins/policy',
    '    options: { deny: [ci_never_*] }',
    '    required: true',
    ''
  ].join('\n'))
  // A plugin as an operator mounts one: plain JavaScript next to the config, no build step.
  await writeFile(join(folder, 'ci-tools.mjs'), `
export function register (ctx) {
  ctx.registerTool({
    name: 'ci_wait',
    schema: { description: 'Waits ms milliseconds', parameters: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] } },
    handler: (args, call) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve('waited ' + args.ms), args.ms)
      call.signal.addEventListener('abort', () => { clearTimeout(timer); reject(call.signal.reason) }, { once: true })
    })
  })
}
`)
}

async function checkImageConfig () {
  check(inspect('{{.Config.User}}') === 'node', `the image runs as "${inspect('{{.Config.User}}')}", not node`)
  const health = JSON.parse(inspect('{{json .Config.Healthcheck}}'))
  check(Array.isArray(health?.Test) && health.Test[0] === 'CMD', `the image has no HEALTHCHECK (${JSON.stringify(health)})`)
  step(`image user: node; HEALTHCHECK: ${health.Test.slice(1).join(' ').slice(0, 80)}...`)
  return health.Test.slice(1)
}

async function checkRefusesOpen () {
  const refused = startContainer(IMAGE, { env: { PORT: '18901' } })
  const { code } = await refused.exited
  await refused.remove()
  check(code !== 0, 'the image started an open gateway on 0.0.0.0 without keys')
  check(refused.output().includes('refusing to listen on 0.0.0.0 without API keys'), `the refusal does not say why:\n${refused.output()}`)
  step(`no config: refused to serve an open 0.0.0.0 (exit ${code})`)
}

async function checkServes (base, workspace, gateway) {
  // A tool module that cannot load in the image (a dev dependency, a .ts path) is skipped, not fatal.
  const discovery = gateway.output().split('\n').find((line) => line.includes('tool discovery done'))
  check(discovery !== undefined && JSON.parse(discovery).skipped === 0, `tool discovery skipped modules in the image: ${discovery}`)
  const open = await request(base, '/definitions')
  check(open.status === 401, `GET /definitions without a key answered ${open.status}`)
  const listed = await request(base, '/definitions', { headers: authorised() })
  check(listed.status === 200, `GET /definitions with the key answered ${listed.status}: ${listed.text.slice(0, 300)}`)
  const names = JSON.parse(listed.text).map((tool) => tool.function.name)
  check(names.includes('ci_wait') && names.includes('read_file'), `GET /definitions lacks ci_wait or read_file: ${names.join(', ')}`)
  check(gateway.output().includes('policy: pre_tool_call rules active'), 'the shipped policy plugin did not load in the image')
  step(`keys enforced (401 without); ${names.length} tools listed, the mounted plugin's among them; the shipped policy plugin active`)

  const read = await request(base, '/dispatch/read_file', { method: 'POST', headers: authorised({ 'content-type': 'application/json' }), body: '{"path":"mounted.txt"}' })
  check(read.status === 200 && JSON.parse(read.text).content.includes('from the host'), `read_file of the mounted workspace: ${read.status} ${read.text.slice(0, 300)}`)
  const write = await request(base, '/dispatch/write_file', { method: 'POST', headers: authorised({ 'content-type': 'application/json' }), body: '{"path":"out/written.txt","content":"from the container\\n"}' })
  check(write.status === 200 && JSON.parse(write.text).ok === true, `write_file: ${write.status} ${write.text.slice(0, 300)}`)
  const written = await stat(join(workspace, 'out', 'written.txt'))
  check(written.uid === NODE_UID, `the written file is owned by uid ${written.uid}, not the node user (${NODE_UID})`)
  check((await readFile(join(workspace, 'out', 'written.txt'), 'utf8')) === 'from the container\n', 'the written file does not hold what was sent')
  step(`dispatch: read a mounted file, wrote one (owned by uid ${written.uid})`)
}

/** The image's HEALTHCHECK command, run in the gateway's container: its exit code and output. */
async function runHealthcheck (container, command, port) {
  const probe = startContainer(IMAGE, { container, env: { PORT: String(port) }, command })
  const { code } = await probe.exited
  return { code, output: probe.output() }
}

async function checkHealthcheck (container, command, port) {
  const { code, output } = await runHealthcheck(container, command, port)
  check(code === 0, `the image's HEALTHCHECK command failed against the running gateway (exit ${code}):\n${output}`)
  step('HEALTHCHECK command: exit 0')
}

async function checkDrain (base, gateway) {
  const inFlight = request(base, '/dispatch/ci_wait', { method: 'POST', headers: authorised({ 'content-type': 'application/json' }), body: '{"ms":1500}' })
  await new Promise((resolve) => setTimeout(resolve, 300))
  gateway.signal('SIGTERM')
  const answer = await inFlight
  check(answer.status === 200 && JSON.parse(answer.text).content === 'waited 1500', `the call in flight at SIGTERM answered ${answer.status}: ${answer.text.slice(0, 300)}`)
  const { code } = await gateway.exited
  check(code === 0, `the gateway exited ${code} after SIGTERM, not 0:\n${gateway.output().slice(-2000)}`)
  step('SIGTERM with a call in flight: the call finished, exit 0')
}

/** The HEALTHCHECK must also be able to fail: against the stopped gateway it reports unhealthy. */
async function checkHealthcheckFails (container, command, port) {
  const { code } = await runHealthcheck(container, command, port)
  check(code !== 0, 'the HEALTHCHECK command passed with no gateway running')
  step(`HEALTHCHECK command with the gateway stopped: exit ${code}`)
}

async function waitForHealth (base, gateway) {
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    check(!gateway.done(), `the gateway exited during start-up:\n${gateway.output()}`)
    const answer = await request(base, '/healthz').catch(() => undefined)
    if (answer?.status === 200) return
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(`the gateway did not answer /healthz within 60 s:\n${gateway.output()}`)
}

function reportSizes () {
  const size = Number(inspect('{{.Size}}'))
  const history = execFileSync('podman', ['history', '--no-trunc', IMAGE, '--format', '{{.Size}}\t{{.CreatedBy}}'], { encoding: 'utf8' })
  step(`image size: ${(size / 1e6).toFixed(0)} MB; layers (newest first):`)
  for (const line of history.trim().split('\n')) {
    const [layerSize, createdBy] = line.split('\t')
    if (layerSize !== '0B' && layerSize !== '0 B') process.stdout.write(`  ${layerSize.padStart(9)}  ${createdBy.replace(/^\/bin\/sh -c (#\(nop\) )?/, '').slice(0, 100)}\n`)
  }
}

async function main () {
  await ensureEngine(step)
  if (!imageExists(BASE_IMAGE)) await buildBaseImage(step)
  await run('podman', ['build', '--isolation=chroot', '--format', 'docker', '--build-arg', `NODE_IMAGE=${BASE_IMAGE}`, '-t', IMAGE, REPO])
  const healthcheck = await checkImageConfig()
  await checkRefusesOpen()

  const temp = await mkdtemp(join(tmpdir(), 'gw-container-'))
  const config = join(temp, 'config')
  const workspace = join(temp, 'workspace')
  let gateway
  try {
    await writeConfig(config)
    await mkdir(workspace)
    await writeFile(join(workspace, 'mounted.txt'), 'from the host\n')
    // The image's user owns its /workspace; a mounted one must be writable by it too.
    await chown(workspace, NODE_UID, NODE_UID)
    await chmod(temp, 0o755)
    const port = 18902
    gateway = startContainer(IMAGE, {
      env: { PORT: String(port), GATEWAY_CONFIG: '/config/gateway.yaml', CI_GATEWAY_KEY: KEY, LOG_LEVEL: 'info' },
      volumes: [`${config}:/config:ro`, `${workspace}:/workspace`]
    })
    const base = `http://127.0.0.1:${port}`
    await waitForHealth(base, gateway)
    step('started with the mounted config and workspace')
    await checkServes(base, workspace, gateway)
    await checkHealthcheck(gateway.container, healthcheck, port)
    await checkDrain(base, gateway)
    await checkHealthcheckFails(gateway.container, healthcheck, port)
  } finally {
    await gateway?.remove()
    await rm(temp, { recursive: true, force: true })
  }
  reportSizes()
  step('passed')
}

main().catch((error) => {
  process.stderr.write(`container:check failed: ${error.message}\n`)
  process.exit(1)
})
