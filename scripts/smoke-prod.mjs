// `npm run smoke:prod`: the Dockerfile's steps without a Docker engine. In a temp folder: copy what
// the Dockerfile COPYs, `npm ci` and `npm run build`, then lay out the runtime stage (package files
// and dist/ only, production dependencies only) and start `node dist/src/server.js` as the image's
// CMD does; check health, readiness, definitions and one dispatch; SIGTERM; expect exit code 0.
// Plain JavaScript on purpose: it runs before anything is built, on whatever Node runs npm.
import { spawn, execFileSync } from 'node:child_process'
import { once } from 'node:events'
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const REPO = fileURLToPath(new URL('..', import.meta.url))
const STARTUP_TIMEOUT_MS = 30_000
const SHUTDOWN_TIMEOUT_MS = 10_000
const started = Date.now()

class SmokeError extends Error {}

function step (message) {
  process.stdout.write(`smoke:prod [${((Date.now() - started) / 1000).toFixed(1)}s] ${message}\n`)
}

function check (condition, message) {
  if (!condition) throw new SmokeError(message)
}

/** Runs a command to completion with its output shown; throws naming it when it fails. */
async function run (command, args, cwd) {
  step(`$ ${command} ${args.join(' ')}`)
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, CI: 'true' } })
  const [code, signal] = await once(child, 'close')
  check(code === 0, `\`${command} ${args.join(' ')}\` failed in ${cwd} (exit ${code ?? signal})`)
}

/** Sources of the Dockerfile's COPY instructions that read the build context (not `--from=`). */
async function dockerfileSources () {
  const text = (await readFile(join(REPO, 'Dockerfile'), 'utf8')).replace(/\\\n/g, ' ')
  const sources = new Set()
  for (const line of text.split('\n')) {
    const words = line.trim().split(/\s+/)
    if (words[0]?.toUpperCase() !== 'COPY' || words.some((w) => w.startsWith('--from'))) continue
    for (const source of words.slice(1, -1).filter((w) => !w.startsWith('--'))) sources.add(source.replace(/\/$/, ''))
  }
  check(sources.size > 0, 'no COPY instruction found in the Dockerfile')
  return [...sources]
}

/** Files a commit would hold (tracked, or new and not ignored): no node_modules, dist or local junk. */
function repositoryFiles () {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' })
  return out.split('\0').filter(Boolean)
}

async function exists (path) {
  try {
    await stat(path)
    return true
  } catch {
    return false
  }
}

/** Copies the build context the Dockerfile reads; a COPY source missing here would fail `docker build` too. */
async function copyContext (to) {
  const sources = await dockerfileSources()
  const files = repositoryFiles()
  for (const source of sources) {
    const inside = files.filter((file) => file === source || file.startsWith(`${source}/`))
    check(inside.length > 0, `the Dockerfile copies ${source}, which the repository does not have`)
    for (const file of inside) {
      // A deleted but still tracked file is simply not there: the image would not have it either.
      if (!(await exists(join(REPO, file)))) continue
      await mkdir(dirname(join(to, file)), { recursive: true })
      await cp(join(REPO, file), join(to, file))
    }
  }
  step(`copied ${sources.join(', ')}`)
}

async function freePort () {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address()
  server.close()
  await once(server, 'close')
  return port
}

async function request (base, path, init) {
  const response = await fetch(base + path, { ...init, signal: AbortSignal.timeout(5_000) })
  const text = await response.text()
  return { status: response.status, headers: response.headers, text }
}

function parse (text, what) {
  try {
    return JSON.parse(text)
  } catch {
    throw new SmokeError(`${what} is not JSON: ${text.slice(0, 300)}`)
  }
}

async function waitForHealth (base, server) {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS
  while (Date.now() < deadline) {
    check(server.exitCode === null && server.signalCode === null, `the server exited during start-up (exit ${server.exitCode ?? server.signalCode})`)
    try {
      const health = await request(base, '/healthz')
      if (health.status === 200) return
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new SmokeError(`GET /healthz did not answer 200 within ${STARTUP_TIMEOUT_MS} ms`)
}

/** The production checks against the running server. */
async function probe (base, runtime, workspace, logs) {
  const ready = await request(base, '/readyz')
  check(ready.status === 200, `GET /readyz answered ${ready.status}: ${ready.text}`)
  step('GET /readyz: 200')

  // A tool module that fails to import in the compiled build (a devDependency, a .ts path) is skipped
  // by discovery, so the server still starts: the log line is where it shows.
  const discovery = logs().split('\n').filter((l) => l.includes('tool discovery done')).map((l) => parse(l, 'a log line'))[0]
  if (discovery === undefined) step('warning: no "tool discovery done" log line found')
  else check(discovery.skipped === 0, `tool discovery skipped ${discovery.skipped} module(s) in the compiled build; see the server log`)

  // The console's page and the vendored OAuth client, found from dist/ and node_modules of the runtime.
  for (const path of ['/console/', '/console/vendor/oauth4webapi.js']) {
    const page = await request(base, path)
    check(page.status === 200, `GET ${path} answered ${page.status}: ${page.text.slice(0, 300)}`)
  }
  step('GET /console/ and its vendored OAuth client: 200')

  const definitions = await request(base, '/definitions')
  check(definitions.status === 200, `GET /definitions answered ${definitions.status}: ${definitions.text.slice(0, 300)}`)
  const tools = parse(definitions.text, 'GET /definitions')
  check(Array.isArray(tools), 'GET /definitions did not answer an array')
  const names = tools.map((tool) => tool?.function?.name)
  step(`GET /definitions: 200, ${names.length} tool(s): ${names.join(', ')}`)

  // The file tools need no configuration: when the build has them, they must be served and work.
  if (!(await exists(join(runtime, 'dist', 'tools', 'file')))) {
    step('no dist/tools/file in this build: dispatch round trip skipped')
    return
  }
  check(names.includes('read_file'), 'dist/tools/file exists but GET /definitions does not list read_file')
  const marker = `smoke ${process.pid} ${Date.now()}`
  await writeFile(join(workspace, 'smoke.txt'), `${marker}\n`)
  const dispatch = await request(base, '/dispatch/read_file', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-tool-call-id': 'call_smoke' },
    body: JSON.stringify({ path: 'smoke.txt' })
  })
  const envelope = parse(dispatch.text, 'POST /dispatch/read_file')
  check(dispatch.status === 200 && envelope.ok === true, `POST /dispatch/read_file answered ${dispatch.status}: ${dispatch.text.slice(0, 500)}`)
  check(envelope.callId === 'call_smoke', `the envelope's callId is ${envelope.callId}, not call_smoke`)
  check(typeof envelope.content === 'string' && envelope.content.includes(marker), `read_file did not return the file: ${envelope.content}`)
  step('POST /dispatch/read_file: ok')
}

async function stop (server) {
  if (server.exitCode !== null || server.signalCode !== null) return { code: server.exitCode, signal: server.signalCode }
  const exited = once(server, 'exit')
  server.kill('SIGTERM')
  const timer = setTimeout(() => server.kill('SIGKILL'), SHUTDOWN_TIMEOUT_MS)
  const [code, signal] = await exited
  clearTimeout(timer)
  return { code, signal }
}

async function main () {
  const temp = await mkdtemp(join(tmpdir(), 'gw-smoke-prod-'))
  const build = join(temp, 'build')
  const runtime = join(temp, 'runtime')
  const workspace = join(temp, 'workspace')
  let server
  let output = ''
  try {
    // Build stage.
    await mkdir(build)
    await copyContext(build)
    await run('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline'], build)
    await run('npm', ['run', 'build'], build)
    check(await exists(join(build, 'dist', 'src', 'server.js')), 'npm run build did not emit dist/src/server.js')

    // Runtime stage: package files, production dependencies, dist/. No sources, no dev tools.
    await mkdir(runtime)
    for (const file of ['package.json', 'package-lock.json']) await cp(join(build, file), join(runtime, file))
    await run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline'], runtime)
    await cp(join(build, 'dist'), join(runtime, 'dist'), { recursive: true })
    // The console's pages, as the image's runtime stage copies them (COPY console ./console).
    await cp(join(build, 'console'), join(runtime, 'console'), { recursive: true })
    check(!(await exists(join(runtime, 'node_modules', 'typescript'))), 'typescript is installed by the production install')
    const binaries = (await readdir(join(runtime, 'node_modules'))).filter((name) => /^node-(linux|darwin|win)-/.test(name))
    check(binaries.length === 0, `the production install carries a Node binary package: ${binaries.join(', ')}`)

    // As the image's CMD, except HOST: loopback, because without API keys protected mode refuses a
    // non-loopback bind (the image's 0.0.0.0) unless GATEWAY_ALLOW_OPEN=true; loopback needs neither.
    const port = await freePort()
    const env = { ...process.env, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port), WORKSPACE_ROOT: workspace, LOG_LEVEL: 'info' }
    // Nothing from this shell may change what runs: no config file, no other tools folder, and no
    // NODE_OPTIONS (an `--import` there would hide a runtime need for a loader).
    for (const name of ['GATEWAY_CONFIG', 'GATEWAY_ALLOW_OPEN', 'TOOLS_DIR', 'NODE_OPTIONS']) delete env[name]
    await mkdir(workspace)
    step(`$ node dist/src/server.js (HOST=127.0.0.1 PORT=${port})`)
    server = spawn(process.execPath, ['dist/src/server.js'], { cwd: runtime, env, stdio: ['ignore', 'pipe', 'pipe'] })
    server.stdout.on('data', (chunk) => { output += chunk })
    server.stderr.on('data', (chunk) => { output += chunk })

    const base = `http://127.0.0.1:${port}`
    await waitForHealth(base, server)
    step('GET /healthz: 200')
    await probe(base, runtime, workspace, () => output)

    const { code, signal } = await stop(server)
    check(code === 0, `after SIGTERM the server exited with ${code ?? signal}, not 0`)
    step('SIGTERM: exit code 0')
    step(`passed in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  } catch (err) {
    if (server !== undefined) await stop(server)
    if (output) process.stderr.write(`--- server output (last 4000 characters) ---\n${output.slice(-4000)}\n---\n`)
    process.stderr.write(`smoke:prod FAILED: ${err instanceof SmokeError ? err.message : err?.stack ?? err}\n`)
    process.exitCode = 1
  } finally {
    await rm(temp, { recursive: true, force: true })
  }
}

await main()
