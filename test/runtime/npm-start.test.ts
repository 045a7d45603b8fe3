// Stopping `npm start` stops the gateway. npm passes SIGTERM to the shell running the start script;
// a shell that stays the server's parent dies of it and leaves the server running, orphaned. The
// script `exec`s node, so the signal reaches the gateway itself, which drains and exits. It runs
// with the sample config copied as a newcomer would: nothing to set, its shipped plugin found.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { cp } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { compiledApp } from '../helpers/compiled-app.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

function alive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function until (what: string, condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

test('`npm start` with the sample config as copied serves; SIGTERM to npm stops the gateway (no orphan left serving)', { timeout: 120_000 }, async (t) => {
  // `npm start` in a copy of what the image holds: package.json, node_modules, the compiled dist/.
  const app = await compiledApp(t, 'gw-npm-start-')
  await cp(join(ROOT, 'gateway.example.yaml'), join(app, 'gateway.yaml'))

  // --ignore-scripts skips prestart (the build, done above) and runs the start script itself.
  const npm = spawn('npm', ['start', '--ignore-scripts'], {
    cwd: app,
    env: { PATH: process.env.PATH ?? '', HOME: app, PORT: '0', GATEWAY_CONFIG: 'gateway.yaml', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  npm.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  npm.stderr.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  const npmExited = once(npm, 'exit')
  const server = { pid: 0 }
  t.after(() => {
    if (npm.exitCode === null) npm.kill('SIGKILL')
    if (server.pid !== 0 && alive(server.pid)) process.kill(server.pid, 'SIGKILL')
  })
  await until('the gateway to listen', () => /Server listening at/.test(output) || npm.exitCode !== null, 60_000)
  assert.equal(npm.exitCode, null, `npm start exited early:\n${output}`)
  const serverPid = Number(/"pid":(\d+)/.exec(output)?.[1])
  server.pid = serverPid
  assert.notEqual(serverPid, npm.pid, 'the gateway is a process of its own, under npm')
  assert.ok(alive(serverPid), `the gateway (pid ${serverPid}) is running`)
  assert.match(output, /"plugin":"policy".*"msg":"policy: pre_tool_call rules active"/, 'the sample\'s shipped plugin loaded from dist/plugins')

  npm.kill('SIGTERM')
  await until(`the gateway (pid ${serverPid}) to exit after npm got SIGTERM`, () => !alive(serverPid), 15_000)
  await npmExited
  assert.match(output, /"msg":"shutting down"/, 'the gateway shut down on the signal (drained), not killed')
})
