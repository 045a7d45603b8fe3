// Probe of issue 25 item 5: races and leftovers around the workspace quota, on the compiled gateway
// (rooted.ts) and the disk itself. (a) WORKSPACE_MAX_BYTES=1048576, 40 write_file calls of 100 KiB
// at once: the answers and the bytes on disk (du -sb, and the files' own sizes). (b) a 100 KiB byte
// quota, empty files each in a new folder (n<i>/f.txt), 8 at a time for 15 s: how many were made and
// how many entries the workspace holds (find | wc -l); once with the default WORKSPACE_MAX_FILES and
// once with WORKSPACE_MAX_FILES=1000 (a checkout that does not know the setting ignores it).
// (c) one write_file to a deep missing path that fails, on an empty workspace: refused by the 100 KiB
// quota (c1), or after its folders could be made (c2: 2 040 folders, a path past PATH_MAX); the
// folders left behind. (d) 8 writers of 8 MiB files, the gateway killed with SIGKILL mid-write: the
// *.tmp files on disk then, 3 s after a restart on the same workspace (no file tool called), and
// after the restarted gateway's first file call.
// Run: PROBE_ROOT=<checkout> node bench/probes/quota-races.ts   (PROBE_PARTS=a,b,c,d picks parts)
import { execFileSync } from 'node:child_process'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { oneShot, PROBE_ROOT, startRooted, stopRooted, type Rooted } from './rooted.ts'

const PARTS = (process.env.PROBE_PARTS ?? 'a,b,c,d').split(',')
const KIB = 1024

interface Call { status: number | string, ok: boolean, error?: string }

/** One write_file over REST on a connection of its own. */
async function writeCall (gateway: Rooted, path: string, content: string, timeoutMs = 60_000): Promise<Call> {
  const answer = await oneShot(gateway.port, 'POST', '/dispatch/write_file', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path, content }), timeoutMs })
  if (answer instanceof Error) return { status: answer.message, ok: false }
  let body: { ok?: boolean, error?: { message?: string } } = {}
  try {
    body = JSON.parse(answer.body)
  } catch {}
  return { status: answer.status, ok: body.ok === true, ...(body.ok === true ? {} : { error: (body.error?.message ?? answer.body).slice(0, 300) }) }
}

function host (command: string, args: string[]): string {
  return execFileSync(command, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }).trim()
}

/** The lines `find <workspace> <args>` prints (find walks trees deeper than PATH_MAX, as a failed write may leave). */
function found (workspace: string, args: string[]): string[] {
  return host('find', [workspace, ...args]).split('\n').filter((line) => line !== '')
}

/** What the workspace holds on disk. */
function disk (workspace: string): Record<string, number> {
  const sizes = found(workspace, ['-type', 'f', '-printf', '%s\n']).map(Number)
  return {
    duSb: Number(host('du', ['-sb', workspace]).split('\t')[0]),
    fileBytes: sizes.reduce((sum, size) => sum + size, 0),
    files: sizes.length,
    findWcL: found(workspace, []).length,
    folders: found(workspace, ['-mindepth', '1', '-type', 'd']).length,
    emptyFolders: found(workspace, ['-mindepth', '1', '-type', 'd', '-empty']).length,
    tmpFiles: found(workspace, ['-name', '*.tmp']).length
  }
}

/** How many calls answered ok, and the distinct refusals (the first 3). */
function tally (calls: Call[]): Record<string, unknown> {
  const errors = [...new Set(calls.filter((call) => !call.ok).map((call) => `${call.status}: ${call.error ?? ''}`))]
  return { calls: calls.length, ok: calls.filter((call) => call.ok).length, refused: calls.filter((call) => !call.ok).length, refusals: errors.slice(0, 3) }
}

async function withGateway (label: string, env: Record<string, string>, run: (gateway: Rooted) => Promise<Record<string, unknown>>): Promise<void> {
  const gateway = await startRooted(label, { env })
  try {
    console.log(JSON.stringify({ probe: 'quota-races', part: label, root: PROBE_ROOT, env, ...await run(gateway) }))
  } finally {
    // GNU rm removes a tree deeper than PATH_MAX; node's rm (in stopRooted) does not.
    host('rm', ['-rf', gateway.workspace])
    await stopRooted(gateway)
  }
}

async function partA (): Promise<void> {
  await withGateway('a', { WORKSPACE_MAX_BYTES: String(1024 * KIB) }, async (gateway) => {
    const content = 'x'.repeat(100 * KIB)
    const calls = await Promise.all(Array.from({ length: 40 }, async (_, i) => await writeCall(gateway, `w${i}.txt`, content)))
    return { writes: '40 x 102400 bytes at once', ...tally(calls), disk: disk(gateway.workspace) }
  })
}

async function partB (maxFiles: string | undefined): Promise<void> {
  const env: Record<string, string> = { WORKSPACE_MAX_BYTES: String(100 * KIB) }
  if (maxFiles !== undefined) env.WORKSPACE_MAX_FILES = maxFiles
  await withGateway(maxFiles === undefined ? 'b' : `b-maxfiles-${maxFiles}`, env, async (gateway) => {
    const calls: Call[] = []
    let next = 0
    const began = performance.now()
    const worker = async (): Promise<void> => {
      while (performance.now() - began < 15_000 && next < 50_000) {
        const i = next++
        calls.push(await writeCall(gateway, `n${i}/f.txt`, ''))
      }
    }
    await Promise.all(Array.from({ length: 8 }, worker))
    return { writes: 'empty n<i>/f.txt, 8 at a time for 15 s', ms: Math.round(performance.now() - began), ...tally(calls), disk: disk(gateway.workspace) }
  })
}

async function partC (): Promise<void> {
  await withGateway('c1', { WORKSPACE_MAX_BYTES: String(100 * KIB) }, async (gateway) => {
    const call = await writeCall(gateway, `${'deep/'.repeat(20)}f.txt`, 'x'.repeat(200 * KIB))
    return { write: '200 KiB to deep/ x 20 /f.txt under a 100 KiB quota', call, disk: disk(gateway.workspace) }
  })
  await withGateway('c2', {}, async (gateway) => {
    const call = await writeCall(gateway, `${'d/'.repeat(2_040)}file.txt`, 'x')
    return { write: "'x' to d/ x 2040 /file.txt (4 088 bytes; the absolute path is past PATH_MAX)", call, disk: disk(gateway.workspace) }
  })
}

/** Temp files of writes under way, in the writers' folders. */
async function tempsNow (workspace: string): Promise<number> {
  let temps = 0
  for (let w = 0; w < 8; w++) temps += (await readdir(join(workspace, `k${w}`)).catch(() => [])).filter((name) => name.endsWith('.tmp')).length
  return temps
}

/**
 * 8 writers of 8 MiB files; after a second, the gateway is killed with SIGKILL as soon as a temp file
 * is seen in the workspace (polled every 5 ms, 20 s at most). The writers' answers are dropped.
 */
async function killMidWrite (gateway: Rooted): Promise<{ writesDone: number, tempsSeenAtKill: number, killedAfterMs: number }> {
  const content = 'k'.repeat(8 * KIB * KIB)
  const state = { running: true }
  let writesDone = 0
  const writers = Array.from({ length: 8 }, async (_, w) => {
    for (let i = 0; state.running; i++) if ((await writeCall(gateway, `k${w}/big${i % 3}.txt`, content, 30_000)).ok) writesDone++
  })
  const began = performance.now()
  await sleep(1000)
  let tempsSeenAtKill = 0
  while (tempsSeenAtKill === 0 && performance.now() - began < 20_000) {
    tempsSeenAtKill = await tempsNow(gateway.workspace)
    if (tempsSeenAtKill === 0) await sleep(5)
  }
  const exited = new Promise<void>((resolve) => gateway.child.once('exit', () => resolve()))
  gateway.child.kill('SIGKILL')
  await exited
  const killedAfterMs = Math.round(performance.now() - began)
  state.running = false
  await Promise.all(writers)
  return { writesDone, tempsSeenAtKill, killedAfterMs }
}

async function partD (): Promise<void> {
  const env = { BODY_LIMIT_BYTES: String(12 * KIB * KIB) }
  const first = await startRooted('d', { env })
  const workspace = first.workspace
  const report: Record<string, unknown> = { probe: 'quota-races', part: 'd', root: PROBE_ROOT }
  let second: Rooted | undefined
  try {
    // Files in place first, so that the writes replace files (the quick way) as well as create them.
    for (let w = 0; w < 8; w++) await writeCall(first, `k${w}/seed.txt`, 'seed')
    report.kill = await killMidWrite(first)
    report.afterKill = disk(workspace)
    second = await startRooted('d-restart', { env: { ...env, WORKSPACE_ROOT: workspace } })
    await sleep(3000)
    report.afterRestart3s = disk(workspace)
    report.firstFileCall = await writeCall(second, 'after-restart.txt', 'hello')
    await sleep(500)
    report.afterFirstFileCall = disk(workspace)
    console.log(JSON.stringify(report))
  } finally {
    if (second !== undefined) await stopRooted(second)
    await stopRooted(first)
  }
}

if (PARTS.includes('a')) await partA()
if (PARTS.includes('b')) {
  await partB(undefined)
  await partB('1000')
}
if (PARTS.includes('c')) await partC()
if (PARTS.includes('d')) await partD()
