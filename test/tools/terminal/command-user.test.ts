// A gateway running as root runs its commands as terminal.user (65534 by default): `id -u` is not 0,
// what a command makes in the workspace is that user's on the host (a setuid bit it sets is then no
// setuid root), the workspace stays writable for it after the file tools (root) wrote there, and the
// gateway still reads and writes what the command made. Where the switch cannot be made, the
// terminal is unavailable unless terminal.user.required is false, which GET /tools then says.
import { before, test } from 'node:test'
import assert from 'node:assert/strict'
import { chmod, copyFile, readFile, realpath, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { resolveCommandUser } from '../../../tools/terminal/lib/command-user.ts'
import { ensureBubblewrap } from '../../helpers/bubblewrap.ts'
import { createToolHarness, type ToolHarness } from '../../helpers/harness.ts'

const ROOT = process.getuid?.() === 0
const asRoot = process.platform !== 'linux'
  ? { skip: 'bubblewrap exists only on Linux' }
  : ROOT ? {} : { skip: 'the user switch applies only when the gateway runs as root' }
const SANDBOXED = { GATEWAY_ENABLE_TERMINAL: 'true', TERMINAL_SANDBOX: 'bwrap' }
const UNCONFINED = { GATEWAY_ENABLE_TERMINAL: 'true', TERMINAL_SANDBOX: 'none' }

before(() => {
  if (process.platform === 'linux') ensureBubblewrap()
})

async function harness (t: { after: (fn: () => Promise<void>) => void }, env: Record<string, string>): Promise<ToolHarness> {
  const h = await createToolHarness(env)
  t.after(() => h.close())
  return h
}

test('as root, a command runs as terminal.user and writes the workspace, files the file tools wrote included', asRoot, async (t) => {
  const h = await harness(t, SANDBOXED)
  const root = await realpath(h.config.workspaceRoot)
  assert.equal((await h.call('write_file', { path: 'notes.txt', content: 'one\n' })).status, 'ok')
  assert.equal((await h.call('write_file', { path: 'deep/dir/a.txt', content: 'a\n' })).status, 'ok')
  const result = await h.json('terminal', {
    command: 'id -u; id -g; id -G; echo two >> notes.txt && echo appended; echo b > deep/dir/b.txt && echo created; ' +
      'mkdir -p made/sub && echo c > made/sub/c.txt && echo made'
  })
  assert.equal(result.output, '65534\n65534\n65534\nappended\ncreated\nmade\n')
  assert.equal(await readFile(join(root, 'notes.txt'), 'utf8'), 'one\ntwo\n')
  for (const path of ['made/sub/c.txt', 'made/sub', 'deep/dir/b.txt', 'notes.txt']) {
    const info = await stat(join(root, path))
    assert.deepEqual([info.uid, info.gid], [65534, 65534], `${path} is the command user's on the host`)
  }
  // The gateway, root, still reads and replaces what the command made.
  assert.match((await h.call('read_file', { path: 'made/sub/c.txt' })).content, /c/)
  assert.equal((await h.call('write_file', { path: 'made/sub/c.txt', content: 'replaced\n' })).status, 'ok')
  assert.equal(await readFile(join(root, 'made/sub/c.txt'), 'utf8'), 'replaced\n')
})

test('terminal.user sets the uid and gid (TERMINAL_UID, TERMINAL_GID), sandboxed and unconfined', asRoot, async (t) => {
  for (const env of [SANDBOXED, UNCONFINED]) {
    const h = await harness(t, { ...env, TERMINAL_UID: '4321', TERMINAL_GID: '4322' })
    const result = await h.json('terminal', { command: 'id -u; id -g; touch mine; grep -E "^Cap(Prm|Eff)" /proc/self/status' })
    assert.equal(result.output, '4321\n4322\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n', env.TERMINAL_SANDBOX)
    const info = await stat(join(await realpath(h.config.workspaceRoot), 'mine'))
    assert.deepEqual([info.uid, info.gid], [4321, 4322])
  }
})

for (const [mode, env] of [['sandboxed', SANDBOXED], ['unconfined', UNCONFINED]] as const) {
  test(`${mode}: a setuid file planted in the workspace is not setuid root on the host`, asRoot, async (t) => {
    const h = await harness(t, env)
    const root = await realpath(h.config.workspaceRoot)
    // One the operator (root) left there, setuid root: handed over, its setuid bit cleared.
    await copyFile('/bin/sh', join(root, 'left'))
    await chmod(join(root, 'left'), 0o4755)
    const result = await h.json('terminal', {
      command: 'cp /bin/sh ./planted && chmod 4755 ./planted && stat -c "%a %u" planted; ./planted -c "id -u"; ' +
        `grep -E " ${root} " /proc/self/mountinfo | cut -d" " -f6; grep NoNewPrivs /proc/self/status`
    })
    const output = result.output as string
    assert.match(output, /^4755 65534\n65534\n/, 'inside, the bit is set, and gives nothing')
    for (const name of ['planted', 'left']) {
      const info = await stat(join(root, name))
      assert.ok(!(info.uid === 0 && (info.mode & 0o4000) !== 0), `${name} is setuid root on the host (${info.mode.toString(8)} ${info.uid})`)
      assert.equal(info.uid, 65534)
    }
    assert.equal((await stat(join(root, 'left'))).mode & 0o6000, 0, 'the hand-over clears the bit')
    assert.match(output, /NoNewPrivs:\s+1/)
    if (mode === 'sandboxed') assert.match(output, /^rw,nosuid,nodev,/m, 'the workspace is mounted nosuid and nodev')
  })
}

test('as root, the process limit now holds: the kernel applies it to terminal.user, and GET /tools has no caveat', asRoot, async (t) => {
  const h = await harness(t, { ...SANDBOXED, TERMINAL_MAX_PROCESSES: '30' })
  const result = await h.json('terminal', {
    command: 'python3 -c "\nimport os, time\nn = 0\ntry:\n  for _ in range(100):\n    if os.fork() == 0:\n      time.sleep(3)\n      os._exit(0)\n    n += 1\n' +
      'except OSError:\n  pass\nprint(\'forked\', n)\n"',
    timeout: 30
  })
  const forked = Number(/^forked (\d+)$/m.exec(result.output as string)?.[1])
  assert.ok(forked < 30, `forked ${forked} of 100 under a limit of 30`)
  const availability = await h.availability.tool(h.registry.snapshot().tools.get('terminal')!)
  assert.equal(availability.reason, undefined)
})

test('as root, where commands cannot be switched to terminal.user the terminal is unavailable unless required is false', asRoot, async () => {
  const user = { uid: 65534, gid: 65534, required: true }
  const refused = await resolveCommandUser(user, '/bin/false')
  assert.equal(refused.kind, 'unavailable')
  assert.match((refused as { reason: string }).reason, /commands cannot be run as uid 65534 \(terminal\.user\).*terminal\.user\.required: false/)
  const allowed = await resolveCommandUser({ ...user, required: false }, '/bin/false')
  assert.equal(allowed.kind, 'root')
  assert.match((allowed as { note: string }).note, /^commands run as root/)
  assert.equal((await resolveCommandUser(user)).kind, 'switch')
  assert.equal((await resolveCommandUser(user, '/nonexistent/setpriv')).kind, 'unavailable')
})

test('as root, a workspace of mode 700 (mkdtemp, install -d -m 700) serves every command, not only the first, and so do folders a command closes to others', asRoot, async (t) => {
  const h = await harness(t, SANDBOXED)
  const root = await realpath(h.config.workspaceRoot)
  await chmod(root, 0o700)
  for (let i = 1; i <= 3; i++) {
    const result = await h.json('terminal', { command: `mkdir -p closed && chmod 700 closed && echo ${i} > closed/n.txt && cat closed/n.txt && id -u` })
    assert.equal(result.output, `${i}\n65534\n`, `command ${i}: ${JSON.stringify(result)}`)
  }
  assert.equal(await readFile(join(root, 'closed/n.txt'), 'utf8'), '3\n')
})
