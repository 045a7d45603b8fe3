// The sandbox tried as a hostile command when the gateway may run as root (as it does in many
// containers, and under `sudo npm start`): the kernel's settings under /proc stay read-only, the host's
// password hashes unreadable, and every command runs under terminal.limits (memory, CPU time, file
// size, processes). A sysctl is tried by writing back its own
// value, so that a sandbox that fails the test still changes nothing on the host.
import { before, test } from 'node:test'
import assert from 'node:assert/strict'
import { readFile, realpath, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { ensureBubblewrap } from '../../helpers/bubblewrap.ts'
import { createToolHarness, type ToolHarness } from '../../helpers/harness.ts'

const onlyLinux = process.platform === 'linux' ? {} : { skip: 'bubblewrap exists only on Linux' }
const SANDBOXED = { GATEWAY_ENABLE_TERMINAL: 'true', TERMINAL_SANDBOX: 'bwrap' }
const MiB = 1024 * 1024

before(() => {
  if (process.platform === 'linux') ensureBubblewrap()
})

async function harness (t: { after: (fn: () => Promise<void>) => void }, env: Record<string, string> = {}): Promise<ToolHarness> {
  const h = await createToolHarness({ ...SANDBOXED, ...env })
  t.after(() => h.close())
  return h
}

test('kernel settings under /proc are read-only inside, and the host\'s password hashes unreadable', onlyLinux, async (t) => {
  const h = await harness(t)
  const before = await readFile('/proc/sys/kernel/core_pattern', 'utf8')
  const result = await h.json('terminal', {
    command: 'for f in /proc/sys/kernel/core_pattern /proc/sys/kernel/modprobe /proc/sys/vm/drop_caches; do ' +
      '(cat "$f" > "$f.new" 2>/dev/null; cat "$f" > "$f") 2>/dev/null && echo "wrote $f" || echo "refused $f"; done; ' +
      'for f in /etc/shadow /etc/gshadow; do test -e "$f" || continue; ' +
      'grep -q ":" "$f" 2>/dev/null && echo "read $f" || echo "hidden $f"; done; ' +
      'grep NoNewPrivs /proc/self/status'
  })
  const output = result.output as string
  assert.doesNotMatch(output, /^wrote /m, output)
  assert.match(output, /^refused \/proc\/sys\/kernel\/core_pattern$/m)
  assert.doesNotMatch(output, /^read /m, output)
  assert.match(output, /^NoNewPrivs:\s+1$/m, 'no setuid program can raise a command\'s privileges')
  assert.equal(await readFile('/proc/sys/kernel/core_pattern', 'utf8'), before)
})

test('a command gets terminal.limits: memory, CPU time and file size are cut where configured', onlyLinux, async (t) => {
  const h = await harness(t, { TERMINAL_MAX_MEMORY_BYTES: String(256 * MiB), TERMINAL_MAX_CPU_SECONDS: '1', TERMINAL_MAX_FILE_BYTES: String(4 * MiB) })
  const root = await realpath(h.config.workspaceRoot)
  const result = await h.json('terminal', {
    command: 'python3 -c "b = bytearray(2 * 1024 ** 3)" 2>&1 | tail -n 1; ' +
      'python3 -c "b = bytearray(64 * 1024 ** 2); print(\'small ok\')"; ' +
      'head -c 50000000 /dev/zero > big.bin 2>/dev/null; echo "file rc $?"; ' +
      'sh -c "while :; do :; done"; echo "cpu rc $?"; ' +
      'prlimit --pid $$ --output RESOURCE,SOFT --noheadings | tr -s " "',
    timeout: 30
  })
  const output = result.output as string
  assert.match(output, /^MemoryError$/m, 'allocating 2 GiB fails')
  assert.match(output, /^small ok$/m, 'within the limit it works')
  assert.match(output, /^file rc 153$/m, 'SIGXFSZ ends the write at the limit')
  assert.equal((await stat(join(root, 'big.bin'))).size, 4 * MiB)
  assert.match(output, /^cpu rc 13[57]$/m, 'a busy loop is killed at its CPU time (SIGKILL past SIGXCPU)')
  assert.match(output, /^DATA 268435456$/m)
  assert.match(output, /^CORE 0$/m)
  assert.match(output, /^NPROC 256$/m, 'the default process limit is set')
})

// As root, commands run as terminal.user, to whom the kernel applies the limit (command-user.test.ts).
test('the process limit is set, and GET /tools has no caveat about it', onlyLinux, async (t) => {
  const h = await harness(t, { TERMINAL_MAX_PROCESSES: '40' })
  const result = await h.json('terminal', {
    command: 'prlimit --pid $$ --nproc --output SOFT --noheadings | tr -d " "',
    timeout: 30
  })
  assert.equal((result.output as string).trim(), '40')
  const availability = await h.availability.tool(h.registry.snapshot().tools.get('terminal')!)
  assert.equal(availability.reason, undefined)
})
