// Probe of issue 25 item 1: the terminal of a gateway that runs as root, with WORKSPACE_MAX_BYTES of
// 10 MiB. A command writes 200 MB into the workspace; then the bytes on disk (du -sb), whether
// write_file is refused, what `id -u` says inside a command, and the host mode and owner of a
// planted `cp /bin/sh x; chmod 4755 x`. Run (as root): PROBE_ROOT=<checkout> node bench/probes/terminal-quota.ts
import { execFileSync } from 'node:child_process'
import { chmod } from 'node:fs/promises'
import { logCounts, oneShot, PROBE_ROOT, startRooted, stopRooted } from './rooted.ts'

const MAX_BYTES = 10_485_760

async function dispatch (port: number, tool: string, args: Record<string, unknown>): Promise<{ status: number | string, body: unknown, ms: number }> {
  const answer = await oneShot(port, 'POST', `/dispatch/${tool}`, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(args), timeoutMs: 120_000 })
  if (answer instanceof Error) return { status: answer.message, body: undefined, ms: 0 }
  let body: unknown = answer.body
  try {
    body = JSON.parse(answer.body)
  } catch {}
  return { status: answer.status, body, ms: Math.round(answer.ms) }
}

/** What a call's answer says, cut short for the report. */
function gist (answer: { status: number | string, body: unknown, ms: number }): string {
  return `${answer.status} in ${answer.ms} ms: ${JSON.stringify(answer.body).slice(0, 400)}`
}

function host (command: string, args: string[]): string {
  try {
    return execFileSync(command, args, { encoding: 'utf8' }).trim()
  } catch (err) {
    return `failed: ${(err as Error).message.split('\n')[0]}`
  }
}

// The workspace's mode: 700 as mkdtemp makes it (and as `install -d -m 700` would), or 755 as the
// gateway makes a missing one; set before the first command.
for (const mode of ['700', '755']) {
  const gateway = await startRooted('terminal-quota', { env: { GATEWAY_ENABLE_TERMINAL: 'true', WORKSPACE_MAX_BYTES: String(MAX_BYTES) } })
  await chmod(gateway.workspace, parseInt(mode, 8))
  try {
    const tools = await oneShot(gateway.port, 'GET', '/tools/terminal')
    const big = await dispatch(gateway.port, 'terminal', { command: 'head -c 200000000 /dev/zero > big; echo exit=$?; ls -l big', timeout: 120 })
    const du = host('du', ['-sb', gateway.workspace])
    const write = await dispatch(gateway.port, 'write_file', { path: 'after.txt', content: 'one more line\n' })
    const uid = await dispatch(gateway.port, 'terminal', { command: 'id -u', timeout: 30 })
    const planted = await dispatch(gateway.port, 'terminal', { command: 'cp /bin/sh x; chmod 4755 x; echo exit=$?', timeout: 30 })
    console.log(JSON.stringify({
      probe: 'terminal-quota',
      root: PROBE_ROOT,
      workspaceMode: mode,
      gatewayUid: process.getuid?.(),
      maxBytes: MAX_BYTES,
      toolAvailability: tools instanceof Error ? tools.message : tools.body.slice(0, 600),
      bigWrite: gist(big),
      duWorkspace: du,
      writeFileAfter: gist(write),
      idU: gist(uid),
      plant: gist(planted),
      statX: host('stat', ['-c', '%A %a owner=%U(%u) group=%G(%g) size=%s', `${gateway.workspace}/x`]),
      logs: logCounts()
    }))
  } finally {
    await stopRooted(gateway)
  }
}
