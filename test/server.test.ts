// The real entry point as a child process: a bad config exits 1 naming the field, protected mode
// refuses an open non-loopback bind, and a started server answers /healthz and exits 0 on SIGTERM.
// The child gets a controlled environment: nothing (no secret) leaks in from the test process.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EXIT_TIMEOUT_MS, listeningPort, START_TIMEOUT_MS, startServer, within, type Exit } from './helpers/server-process.ts'

interface TestContext { after: (fn: () => Promise<void> | void) => void }

/** A folder with an empty tools dir and a workspace, removed after the test. */
async function sandbox (t: TestContext): Promise<{ dir: string, env: Record<string, string> }> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-server-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await mkdir(join(dir, 'tools'))
  await mkdir(join(dir, 'workspace'))
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    TOOLS_DIR: join(dir, 'tools'),
    WORKSPACE_ROOT: join(dir, 'workspace'),
    PORT: '0'
  }
  return { dir, env }
}

/** Runs a server expected to refuse to start; resolves with its exit and output. */
async function failedStart (t: TestContext, env: Record<string, string>): Promise<Exit & { stdout: string, stderr: string }> {
  const server = startServer(t, env)
  const exit = await within(server.exited, START_TIMEOUT_MS, 'waiting for the server to exit', () => server.stdout() + server.stderr())
  return { ...exit, stdout: server.stdout(), stderr: server.stderr() }
}

test('a bad PORT stops start-up with exit code 1 and a message naming the field and what was expected', async (t) => {
  const { env } = await sandbox(t)
  const result = await failedStart(t, { ...env, PORT: 'abc' })
  assert.equal(result.code, 1, result.stderr)
  assert.match(result.stderr, /cannot start/)
  assert.match(result.stderr, /port \(from PORT="abc"\): must be integer/)
  assert.doesNotMatch(result.stdout, /Server listening/)
})

test('a bad LOG_LEVEL stops start-up listing the valid levels', async (t) => {
  const { env } = await sandbox(t)
  const result = await failedStart(t, { ...env, LOG_LEVEL: 'loud' })
  assert.equal(result.code, 1, result.stderr)
  assert.match(result.stderr, /logLevel \(from LOG_LEVEL="loud"\): .*\(fatal, error, warn, info, debug, trace, silent\)/)
})

test('a config file that cannot be read stops start-up naming the file', async (t) => {
  const { dir, env } = await sandbox(t)
  const missing = join(dir, 'absent.yaml')
  const result = await failedStart(t, { ...env, GATEWAY_CONFIG: missing })
  assert.equal(result.code, 1, result.stderr)
  assert.ok(result.stderr.includes(missing), result.stderr)
})

test('a required plugin that fails to load stops start-up with exit code 1 naming it; a plain one only logs', async (t) => {
  const { dir, env } = await sandbox(t)
  await writeFile(join(dir, 'guard.mjs'), 'throw new Error("policy database unreachable")\n')
  await writeFile(join(dir, 'required.yaml'), 'plugins:\n  - { module: ./guard.mjs, required: true }\n')
  const result = await failedStart(t, { ...env, GATEWAY_CONFIG: join(dir, 'required.yaml') })
  assert.equal(result.code, 1, result.stderr)
  assert.match(result.stderr, /cannot start: required plugin "guard" failed to load: policy database unreachable/)
  assert.doesNotMatch(result.stdout, /Server listening/)

  await writeFile(join(dir, 'optional.yaml'), 'plugins:\n  - ./guard.mjs\n')
  const server = startServer(t, { ...env, GATEWAY_CONFIG: join(dir, 'optional.yaml') })
  const port = await listeningPort(server)
  assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200)
  assert.match(server.stdout(), /plugin failed to load; skipped/)
  server.child.kill('SIGTERM')
  assert.equal((await within(server.exited, EXIT_TIMEOUT_MS, 'waiting for exit', server.stdout)).code, 0)
})

test('protected mode: a non-loopback HOST without API keys refuses to start and says why', async (t) => {
  const { env } = await sandbox(t)
  const result = await failedStart(t, { ...env, HOST: '0.0.0.0' })
  assert.equal(result.code, 1, result.stderr)
  assert.match(result.stderr, /refusing to listen on 0\.0\.0\.0 without API keys/)
  assert.match(result.stderr, /auth\.keys/)
  assert.match(result.stderr, /GATEWAY_ALLOW_OPEN=true/)
  assert.doesNotMatch(result.stdout, /Server listening/)
})

test('with GATEWAY_ALLOW_OPEN=true it starts warning that it is open, serves /healthz, and exits 0 on SIGTERM', async (t) => {
  const { env } = await sandbox(t)
  const server = startServer(t, { ...env, HOST: '0.0.0.0', GATEWAY_ALLOW_OPEN: 'true' })
  const port = await listeningPort(server)
  // Allowed, but said out loud: an open gateway on a reachable address is one step from an accident.
  assert.match(server.stdout(), /"level":40,.*"host":"0\.0\.0\.0","msg":"open gateway: listening on 0\.0\.0\.0 without API keys \(GATEWAY_ALLOW_OPEN=true\)/)
  const response = await fetch(`http://127.0.0.1:${port}/healthz`)
  assert.equal(response.status, 200)
  assert.deepEqual(await response.json(), { status: 'ok' })
  const ready = await fetch(`http://127.0.0.1:${port}/readyz`)
  assert.equal(ready.status, 200)

  server.child.kill('SIGTERM')
  const exit = await within(server.exited, EXIT_TIMEOUT_MS, 'waiting for exit after SIGTERM', () => server.stdout() + server.stderr())
  assert.deepEqual(exit, { code: 0, signal: null }, server.stderr())
  assert.match(server.stdout(), /"signal":"SIGTERM".*"msg":"shutting down"/)
  assert.equal(server.stderr(), '')
})

test('with an API key from an environment variable it may bind a non-loopback HOST, and the key is required', async (t) => {
  const { dir, env } = await sandbox(t)
  const key = 'server-test-key-0123456789'
  const configPath = join(dir, 'gateway.yaml')
  await writeFile(configPath, 'auth:\n  keys:\n    - name: tester\n      env: GATEWAY_TEST_KEY\n')
  const server = startServer(t, { ...env, HOST: '0.0.0.0', GATEWAY_CONFIG: configPath, GATEWAY_TEST_KEY: key })
  const port = await listeningPort(server)
  const base = `http://127.0.0.1:${port}`

  assert.equal((await fetch(`${base}/healthz`)).status, 200)
  const refused = await fetch(`${base}/definitions`)
  assert.equal(refused.status, 401)
  assert.equal(((await refused.json()) as { code: string }).code, 'GW_ERR_UNAUTHORIZED')
  const allowed = await fetch(`${base}/definitions`, { headers: { authorization: `Bearer ${key}` } })
  assert.equal(allowed.status, 200)
  assert.deepEqual(await allowed.json(), [])

  server.child.kill('SIGTERM')
  const exit = await within(server.exited, EXIT_TIMEOUT_MS, 'waiting for exit after SIGTERM', () => server.stdout() + server.stderr())
  assert.equal(exit.code, 0, server.stderr())
  assert.ok(!server.stdout().includes(key), 'the key appears in the log')
  assert.doesNotMatch(server.stdout(), /open gateway/, 'with keys it is not open')
})

test('SIGTERM still ends the process when its log reader has gone away (a broken stdout pipe)', async (t) => {
  const { env } = await sandbox(t)
  const server = startServer(t, env)
  await listeningPort(server)
  // The log collector dies: every write to stdout now fails with EPIPE.
  server.child.stdout!.destroy()
  server.child.stderr!.destroy()
  server.child.kill('SIGTERM')
  const exit = await within(server.exited, EXIT_TIMEOUT_MS, 'waiting for exit after SIGTERM with stdout closed', () => 'its output is gone with its pipes')
  assert.deepEqual(exit, { code: 0, signal: null })
})
