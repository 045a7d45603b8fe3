// The terminal's containment, tried from inside a command as a model would: the gateway's
// environment and config file, other processes, the network and files outside the workspace are out
// of reach in the bubblewrap sandbox, and a `setsid` child never outlives its call, with or without
// the sandbox (without it, the run marker finds it).
//
// On Linux these tests need bubblewrap: they install it when it is missing and FAIL when they cannot,
// rather than skip, so no machine passes while testing nothing. Elsewhere there is no bubblewrap to
// test, and the sandboxed cases are skipped with that reason.
import { before, test } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { mkdir, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { ensureBubblewrap } from '../../helpers/bubblewrap.ts'
import { createToolHarness, type ToolHarness } from '../../helpers/harness.ts'

const LINUX = process.platform === 'linux'
const SANDBOXED = { GATEWAY_ENABLE_TERMINAL: 'true', TERMINAL_SANDBOX: 'bwrap' }
const UNCONFINED = { GATEWAY_ENABLE_TERMINAL: 'true', TERMINAL_SANDBOX: 'none' }
const onlyLinux = LINUX ? {} : { skip: 'bubblewrap exists only on Linux' }

before(() => {
  if (LINUX) ensureBubblewrap()
})

async function harness (t: { after: (fn: () => Promise<void>) => void }, env: Record<string, string>): Promise<ToolHarness> {
  const h = await createToolHarness(env)
  t.after(() => h.close())
  return h
}

/** Host pids of live processes whose command line is exactly `argv`, read from the host's /proc. */
async function hostProcesses (argv: string[]): Promise<number[]> {
  const wanted = `${argv.join('\0')}\0`
  const found: number[] = []
  for (const name of (await readdir('/proc')).filter((entry) => /^\d+$/.test(entry))) {
    try {
      const stat = await readFile(`/proc/${name}/stat`, 'utf8')
      if (/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2))) continue
      if (await readFile(`/proc/${name}/cmdline`, 'utf8') === wanted) found.push(Number(name))
    } catch {} // gone while we looked
  }
  return found
}

async function waitFor (what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return
    await delay(10)
  }
  assert.fail(`timed out waiting until ${what}`)
}

/** A `sleep` with a duration no other test uses, killed after the test in case it escaped. */
function uniqueSleep (t: { after: (fn: () => Promise<void>) => void }): { argv: string[], command: string } {
  const argv = ['sleep', `${1000 + Math.floor(Math.random() * 1e6)}.5`]
  t.after(async () => {
    for (const pid of await hostProcesses(argv)) process.kill(pid, 'SIGKILL')
  })
  return { argv, command: argv.join(' ') }
}

test('a command cannot read the gateway\'s environment, its config file or its files outside the workspace', onlyLinux, async (t) => {
  process.env.GW_SANDBOX_SECRET = 'sandbox-secret-4711'
  const h = await harness(t, SANDBOXED)
  const root = await realpath(h.config.workspaceRoot)
  // The gateway's own config file, here inside the workspace to show it is hidden wherever it is.
  const configPath = join(root, 'gateway.yaml')
  await writeFile(configPath, '# config-secret-0815\n')
  const previousConfig = process.env.GATEWAY_CONFIG
  process.env.GATEWAY_CONFIG = configPath
  await writeFile(join(h.tempDir, 'beside.txt'), 'beside-secret-2323\n')
  t.after(() => {
    delete process.env.GW_SANDBOX_SECRET
    if (previousConfig === undefined) delete process.env.GATEWAY_CONFIG
    else process.env.GATEWAY_CONFIG = previousConfig
  })
  const result = await h.json('terminal', {
    command: `cat /proc/${process.pid}/environ; cat /proc/*/environ; cat ${configPath}; cat ${h.tempDir}/beside.txt; ` +
      `ls ${h.tempDir}; cat /proc/${process.pid}/cmdline; echo done`
  })
  const output = result.output as string
  // NODE_TEST_CONTEXT is in the gateway's (the test runner's) environment, not in the allowlist.
  for (const secret of ['sandbox-secret-4711', 'config-secret-0815', 'beside-secret-2323', 'NODE_TEST_CONTEXT']) {
    assert.ok(!output.includes(secret), `${secret} leaked: ${output}`)
  }
  assert.ok(output.includes(`/proc/${process.pid}/environ: No such file or directory`), output)
  assert.match(output, /done\n$/)
  assert.equal(await readFile(configPath, 'utf8'), '# config-secret-0815\n', 'hidden, not touched')
})

test('a command sees and signals only its own processes', onlyLinux, async (t) => {
  const h = await harness(t, SANDBOXED)
  const result = await h.json('terminal', { command: `ps -e -o comm=; kill -0 ${process.pid} && echo signalled` })
  const names = (result.output as string).trim().split('\n')
  assert.ok(!names.includes('node') && !names.includes('signalled'), names.join(', '))
  assert.ok(names.length <= 4, `only the sandbox's own processes: ${names.join(', ')}`)
})

test('a command cannot reach the network, not even a listener on the host\'s loopback', onlyLinux, async (t) => {
  let connections = 0
  const server = createServer((socket) => { connections++; socket.destroy() })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.after(() => { server.close() })
  const { port } = server.address() as { port: number }
  const h = await harness(t, SANDBOXED)
  const result = await h.json('terminal', {
    command: `bash -c 'echo hi > /dev/tcp/127.0.0.1/${port}' 2>/dev/null && echo reached || echo blocked; ` +
      `curl -s -m 5 http://127.0.0.1:${port}/ >/dev/null && echo reached || echo blocked`
  })
  assert.equal(result.output, 'blocked\nblocked\n')
  assert.equal(connections, 0)
})

test('only the workspace is writable: the system is read-only, /tmp private, the rest absent', onlyLinux, async (t) => {
  const h = await harness(t, SANDBOXED)
  const root = await realpath(h.config.workspaceRoot)
  const tag = `gw-sandbox-probe-${process.pid}-${Date.now()}`
  t.after(() => Promise.all([`/etc/${tag}`, `/usr/${tag}`, `/tmp/${tag}`].map((path) => rm(path, { force: true }))).then(() => {}))
  await mkdir(join(h.tempDir, 'outside'))
  const result = await h.json('terminal', {
    command: `for f in /etc/${tag} /usr/${tag} ${h.tempDir}/outside/${tag} /tmp/${tag} ${tag}; do ` +
      '(echo x > "$f") 2>/dev/null && echo "wrote $f" || echo "refused $f"; done'
  })
  assert.equal(result.output, [
    `refused /etc/${tag}`, `refused /usr/${tag}`, `refused ${h.tempDir}/outside/${tag}`, `wrote /tmp/${tag}`, `wrote ${tag}`, ''
  ].join('\n'))
  assert.equal(await readFile(join(root, tag), 'utf8'), 'x\n', 'the workspace is the real one')
  for (const path of [`/etc/${tag}`, `/usr/${tag}`, join(h.tempDir, 'outside', tag), `/tmp/${tag}`]) {
    await assert.rejects(readFile(path), { code: 'ENOENT' }, `${path} reached the host`)
  }
})

for (const [mode, env] of [['sandboxed', SANDBOXED], ['unconfined', UNCONFINED]] as const) {
  const options = mode === 'sandboxed' ? onlyLinux : {}

  test(`${mode}: a setsid child dies with the call when it ends on its own, at its timeout and on abort`, options, async (t) => {
    const h = await harness(t, env)
    const ended = uniqueSleep(t)
    const result = await h.json('terminal', { command: `setsid ${ended.command} >/dev/null 2>&1 & echo started` })
    assert.equal(result.output, 'started\n')
    await waitFor(`${ended.command} is gone after the command ended`, async () => (await hostProcesses(ended.argv)).length === 0)

    const timed = uniqueSleep(t)
    const running = h.call('terminal', { command: `setsid ${timed.command} & sleep 300`, timeout: 2 })
    await waitFor(`${timed.command} runs`, async () => (await hostProcesses(timed.argv)).length === 1)
    assert.equal(JSON.parse((await running).content).timed_out, true)
    await waitFor(`${timed.command} is gone after the timeout`, async () => (await hostProcesses(timed.argv)).length === 0)

    const aborted = uniqueSleep(t)
    const controller = new AbortController()
    const cancelled = h.call('terminal', { command: `setsid ${aborted.command} & sleep 300` }, { signal: controller.signal })
    await waitFor(`${aborted.command} runs`, async () => (await hostProcesses(aborted.argv)).length === 1)
    controller.abort()
    assert.equal((await cancelled).status, 'cancelled')
    await waitFor(`${aborted.command} is gone after the abort`, async () => (await hostProcesses(aborted.argv)).length === 0)
  })

  test(`${mode}: a setsid child of a background command dies when it is killed and at shutdown`, options, async (t) => {
    const h = await harness(t, env)
    const killed = uniqueSleep(t)
    const first = await h.json('terminal', { command: `setsid ${killed.command} & sleep 300`, background: true })
    await waitFor(`${killed.command} runs`, async () => (await hostProcesses(killed.argv)).length === 1)
    assert.equal((await h.json('process', { action: 'kill', id: first.id })).status, 'killed')
    await waitFor(`${killed.command} is gone after the kill`, async () => (await hostProcesses(killed.argv)).length === 0)

    const atShutdown = uniqueSleep(t)
    await h.json('terminal', { command: `setsid ${atShutdown.command} >/dev/null 2>&1 & sleep 300`, background: true })
    await waitFor(`${atShutdown.command} runs`, async () => (await hostProcesses(atShutdown.argv)).length === 1)
    await h.registry.snapshot().tools.get('terminal')?.dispose?.()
    assert.deepEqual(await hostProcesses(atShutdown.argv), [], 'gone once shutdown is over')
  })
}

test('unconfined: the result says when a process that left the process group was stopped', async (t) => {
  const h = await harness(t, UNCONFINED)
  const escaped = uniqueSleep(t)
  // The command waits until the child has left the group (setsid done), so the group kill misses it.
  const result = await h.json('terminal', {
    command: `setsid sh -c 'echo $$ > escaped.pid; exec ${escaped.command}' >/dev/null 2>&1 & ` +
      'while [ ! -s escaped.pid ]; do sleep 0.05; done; echo started'
  })
  assert.match(result.warning as string, /^1 process\(es\) started by the command left its process group .*; they were stopped/)
  assert.deepEqual(await hostProcesses(escaped.argv), [])
})
