// The `terminal` tool through the real dispatcher: off by default, output and exit codes, an
// environment without the gateway's secrets, a start folder that cannot leave the workspace, and
// no process left behind after a timeout or an abort.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { getBuiltinToolset } from '../../../src/toolsets/builtin.ts'
import { resolveToolset } from '../../../src/toolsets/resolve.ts'
import { liveGroupMembers, waitGroupGone } from '../../../tools/terminal/lib/process-group.ts'
import { createToolHarness, type ToolHarness } from '../../helpers/harness.ts'

// Unconfined: these tests read the command's process group from the host (`echo $$`), which inside
// the sandbox's PID namespace is another number; sandbox.test.ts covers the sandboxed equivalents.
const ON = { GATEWAY_ENABLE_TERMINAL: 'true', TERMINAL_SANDBOX: 'none' }

async function harness (t: { after: (fn: () => Promise<void>) => void }, env: Record<string, string> = ON): Promise<ToolHarness> {
  const h = await createToolHarness(env)
  t.after(() => h.close())
  return h
}

/** Bounded wait for a file a command writes (its process group id, say). */
async function readWhenWritten (path: string): Promise<string> {
  for (let i = 0; i < 300; i++) {
    try {
      const text = (await readFile(path, 'utf8')).trim()
      if (text !== '') return text
    } catch {}
    await delay(10)
  }
  assert.fail(`${path} was never written`)
}

async function membersAtLeast (pgid: number, count: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if ((await liveGroupMembers(pgid) ?? []).length >= count) return
    await delay(10)
  }
  assert.fail(`group ${pgid} never reached ${count} live members`)
}

test('off unless GATEWAY_ENABLE_TERMINAL=true: both tools unavailable with the reason, absent from definitions', async (t) => {
  const h = await harness(t, {})
  for (const [name, args] of [['terminal', { command: 'echo hi' }], ['process', { action: 'list' }]] as const) {
    const outcome = await h.call(name, args)
    assert.equal(outcome.status, 'unavailable', name)
    assert.match(outcome.content, /terminal tools are disabled: set GATEWAY_ENABLE_TERMINAL=true to enable them/)
  }
  const names = (await h.definitions.definitions(['terminal', 'process'])).map((tool) => tool.function.name)
  assert.deepEqual(names, [])

  const on = await harness(t)
  assert.deepEqual((await on.definitions.definitions(['terminal', 'process'])).map((tool) => tool.function.name), ['process', 'terminal'])
})

test('both tools belong to the terminal toolset only, which the safe toolset does not include', async (t) => {
  const h = await harness(t)
  const tools = h.registry.snapshot().tools
  assert.equal(tools.get('terminal')?.toolset, 'terminal')
  assert.equal(tools.get('process')?.toolset, 'terminal')
  const safe = resolveToolset('safe', getBuiltinToolset)
  assert.ok(!safe.includes('terminal') && !safe.includes('process'), `safe = ${safe.join(', ')}`)
  // Shutdown is wired once: on terminal, not on process.
  assert.equal(typeof tools.get('terminal')?.dispose, 'function')
  assert.equal(tools.get('process')?.dispose, undefined)
})

test('runs a command in the workspace and returns stdout, stderr and the exit code', async (t) => {
  const h = await harness(t)
  const ok = await h.call('terminal', { command: 'echo out; echo err >&2; pwd' })
  assert.equal(ok.status, 'ok')
  const result = JSON.parse(ok.content)
  assert.equal(result.exit_code, 0)
  // Two pipes: the lines come in arrival order, which need not be the order they were written in.
  assert.deepEqual((result.output as string).split('\n').sort(), ['', await realpath(h.config.workspaceRoot), 'err', 'out'].sort())
  assert.equal(typeof result.duration_ms, 'number')
  assert.equal(result.timed_out, undefined)
  assert.equal(result.truncated, undefined)

  // A failing command is a result the model reads, not a tool error.
  const failed = await h.call('terminal', { command: 'echo before; ls /no/such/path; exit 3' })
  assert.equal(failed.status, 'ok')
  assert.equal(failed.ok, true)
  const failure = JSON.parse(failed.content)
  assert.equal(failure.exit_code, 3)
  assert.match(failure.output, /^before$/m)
  assert.match(failure.output, /no\/such\/path/, 'stderr is captured')
})

test('a command that cannot be spawned is a tool error', async (t) => {
  const h = await harness(t)
  const outcome = await h.call('terminal', { command: 'echo a\u0000b' })
  assert.equal(outcome.status, 'error')
  assert.match(outcome.content, /could not be started/)
})

test('the workspace is created when missing', async (t) => {
  const parent = await mkdtemp(join(await realpath(tmpdir()), 'gw-term-missing-'))
  t.after(() => rm(parent, { recursive: true, force: true }))
  const root = join(parent, 'not', 'yet')
  const h = await harness(t, { ...ON, WORKSPACE_ROOT: root })
  const result = await h.json('terminal', { command: 'pwd' })
  assert.equal(result.output, `${root}\n`)
})

test('the environment holds only the allowlist: a secret of the gateway is not visible, PATH works, HOME is the workspace', async (t) => {
  process.env.GW_TEST_SECRET = 'gw-secret-value-3141'
  process.env.GW_TEST_ALLOWED = 'allowed-value-2718'
  t.after(() => {
    delete process.env.GW_TEST_SECRET
    delete process.env.GW_TEST_ALLOWED
  })
  const h = await harness(t)
  const result = await h.json('terminal', { command: 'env; echo "secret=[$GW_TEST_SECRET]"; command -v ls; echo "path=$PATH"' })
  assert.equal(result.exit_code, 0)
  const output = result.output as string
  assert.ok(!output.includes('gw-secret-value-3141'), output)
  assert.ok(!output.includes('allowed-value-2718'), 'not in the default allowlist either')
  assert.match(output, /^secret=\[\]$/m)
  assert.match(output, /\/ls$/m, 'PATH finds ls')
  assert.ok(output.includes(`path=${process.env.PATH}\n`))
  assert.match(output, new RegExp(`^HOME=${await realpath(h.config.workspaceRoot)}$`, 'm'))

  // The allowlist is what decides: listing a variable lets it through.
  const configPath = join(h.tempDir, 'allow.yaml')
  await writeFile(configPath, 'terminal:\n  envAllowlist: [PATH, GW_TEST_ALLOWED]\n')
  const allowed = await harness(t, { ...ON, GATEWAY_CONFIG: configPath })
  const second = await allowed.json('terminal', { command: 'echo "allowed=[$GW_TEST_ALLOWED] secret=[$GW_TEST_SECRET]"' })
  assert.equal(second.output, 'allowed=[allowed-value-2718] secret=[]\n')
})

test('workdir: a folder inside the workspace works; .., absolute paths outside and symlinks leading out are refused', async (t) => {
  const h = await harness(t)
  const root = await realpath(h.config.workspaceRoot)
  await mkdir(join(root, 'sub', 'dir'), { recursive: true })
  await writeFile(join(root, 'file.txt'), 'x')
  await symlink(await realpath(tmpdir()), join(root, 'out-link'))
  await symlink('/etc', join(root, 'sub', 'etc-link'))
  await symlink(join(root, 'sub'), join(root, 'in-link'))

  assert.equal((await h.json('terminal', { command: 'pwd', workdir: 'sub/dir' })).output, `${join(root, 'sub', 'dir')}\n`)
  assert.equal((await h.json('terminal', { command: 'pwd', workdir: join(root, 'sub') })).output, `${join(root, 'sub')}\n`)
  assert.equal((await h.json('terminal', { command: 'pwd', workdir: 'in-link' })).output, `${join(root, 'sub')}\n`, 'a symlink staying inside is fine')
  assert.equal((await h.json('terminal', { command: 'pwd', workdir: 'sub/dir/../..' })).output, `${root}\n`)

  const refused: Array<[string, RegExp]> = [
    ['..', /outside the workspace/],
    ['../', /outside the workspace/],
    ['sub/../../..', /outside the workspace/],
    ['/etc', /outside the workspace/],
    ['/', /outside the workspace/],
    [join(root, '..'), /outside the workspace/],
    ['out-link', /outside the workspace through a symbolic link/],
    ['sub/etc-link', /outside the workspace through a symbolic link/],
    ['missing', /does not exist/],
    ['file.txt', /not a folder/],
    ['sub\u0000', /NUL/]
  ]
  for (const [workdir, message] of refused) {
    const outcome = await h.call('terminal', { command: 'echo ran > ran.txt', workdir })
    assert.equal(outcome.status, 'error', workdir)
    assert.match(JSON.parse(outcome.content).error, message, workdir)
  }
  await assert.rejects(readFile(join(root, 'ran.txt')), { code: 'ENOENT' }, 'no refused command ran')
})

test('timeout kills the whole process group, grandchildren and subshells included', async (t) => {
  const h = await harness(t)
  const root = await realpath(h.config.workspaceRoot)
  const running = h.call('terminal', {
    command: "echo $$ > pgid; sleep 300 & sleep 300 & sh -c 'sleep 1000; echo never' & echo started; wait",
    timeout: 1
  })
  const pgid = Number(await readWhenWritten(join(root, 'pgid')))
  await membersAtLeast(pgid, 4)
  const outcome = await running
  assert.equal(outcome.status, 'ok')
  const result = JSON.parse(outcome.content)
  assert.equal(result.timed_out, true)
  assert.equal(result.exit_code, null)
  assert.equal(result.signal, 'SIGTERM')
  assert.equal(result.output, 'started\n')
  assert.match(result.note, /timeout/)
  assert.equal(await waitGroupGone(pgid, 3000), true, `left behind: ${await liveGroupMembers(pgid)}`)
})

test('processes a command leaves running when it exits are stopped', async (t) => {
  const h = await harness(t)
  const result = await h.json('terminal', { command: 'sleep 300 & echo $$' })
  assert.equal(result.exit_code, 0)
  assert.match(result.note as string, /background: true/)
  assert.equal(await waitGroupGone(Number(result.output), 3000), true)
})

test('aborting the dispatch (caller gone, shutdown) cancels the call and kills the process group', async (t) => {
  const h = await harness(t)
  const root = await realpath(h.config.workspaceRoot)
  const controller = new AbortController()
  const running = h.call('terminal', { command: 'echo $$ > pgid; sleep 300 & sleep 300; wait' }, { signal: controller.signal })
  const pgid = Number(await readWhenWritten(join(root, 'pgid')))
  await membersAtLeast(pgid, 3)
  controller.abort()
  const outcome = await running
  assert.equal(outcome.status, 'cancelled')
  assert.equal(await waitGroupGone(pgid, 3000), true, `left behind: ${await liveGroupMembers(pgid)}`)
})

test('the dispatcher deadline (a per-call timeout) also kills the process group', async (t) => {
  const h = await harness(t)
  const root = await realpath(h.config.workspaceRoot)
  const running = h.call('terminal', { command: 'echo $$ > pgid; sleep 300' }, { timeoutMs: 300 })
  const pgid = Number(await readWhenWritten(join(root, 'pgid')))
  const outcome = await running
  assert.equal(outcome.status, 'timeout')
  assert.equal(await waitGroupGone(pgid, 3000), true)
})

test('output over terminal.maxOutputChars keeps the first 40 % and the last 60 % with a marker giving the counts', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-term-config-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const configPath = join(dir, 'small.yaml')
  await writeFile(configPath, 'terminal:\n  maxOutputChars: 1000\n')
  const h = await harness(t, { ...ON, GATEWAY_CONFIG: configPath })
  // 500 lines of 5 characters: 2500 in all.
  const command = "i=0; while [ $i -lt 500 ]; do printf '%04d\\n' $i; i=$((i+1)); done"
  const result = await h.json('terminal', { command })
  const lines = (from: number, to: number): string => Array.from({ length: to - from }, (_, k) => `${String(from + k).padStart(4, '0')}\n`).join('')
  assert.equal(result.truncated, true)
  assert.equal(result.output, `${lines(0, 80)}\n[... 1500 characters omitted of 2500 ...]\n${lines(380, 500)}`)

  const small = await h.json('terminal', { command: 'echo short' })
  assert.equal(small.output, 'short\n')
  assert.equal(small.truncated, undefined)
})

test('timeout is validated: above 600 s or not positive is refused before anything runs', async (t) => {
  const h = await harness(t)
  assert.equal((await h.call('terminal', { command: 'true', timeout: 601 })).status, 'invalid')
  assert.equal((await h.call('terminal', { command: 'true', timeout: 0 })).status, 'invalid')
  assert.equal((await h.call('terminal', { command: '' })).status, 'invalid')
})
