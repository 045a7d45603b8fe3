// The gateway launched as an MCP stdio server, for tests: a sandbox (workspace with a file, a
// config with the stdio fixture plugin), the process driven by hand over its pipes, and what /proc
// says about it (its listening sockets, the processes a command left).
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { withTimeout } from '../../src/shared/timers.ts'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))
/** The package's command (`npx tool-gateway`). */
export const BIN = join(ROOT, 'bin', 'tool-gateway.js')
/** The documented `node src/server.ts` form. */
export const SERVER = join(ROOT, 'src', 'server.ts')
export const PLUGIN = join(ROOT, 'test', 'fixtures', 'mcp-server', 'stdio-plugin.ts')
// Generous: each child strips the types of every module it loads, on a possibly busy machine.
export const WAIT_MS = 30_000

interface TestContext { after: (fn: () => Promise<void> | void) => void }

export interface Sandbox {
  dir: string
  configFile: string
  /** The child's whole environment. */
  env: Record<string, string>
}

/** A temp folder with workspace/notes.txt and a config loading the fixture plugin (printing to stdout). */
export async function sandbox (t: TestContext, config: Record<string, unknown> = {}, env: Record<string, string> = {}): Promise<Sandbox> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-stdio-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const workspace = join(dir, 'workspace')
  await mkdir(workspace)
  await writeFile(join(workspace, 'notes.txt'), 'first line\nsecond line\n')
  const configFile = join(dir, 'gateway.json')
  await writeFile(configFile, JSON.stringify({ plugins: [{ module: PLUGIN, options: { print: true } }], ...config }))
  return {
    dir,
    configFile,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dir,
      WORKSPACE_ROOT: workspace,
      GATEWAY_CONFIG: configFile,
      GATEWAY_ENABLE_TERMINAL: 'true',
      TERMINAL_SANDBOX: 'none',
      ...env
    }
  }
}

/** Polls `check` until it holds; fails naming `what` after WAIT_MS. */
export async function waitFor (check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`waited ${WAIT_MS} ms for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

export interface Launched {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  exited: Promise<{ code: number | null, signal: NodeJS.Signals | null }>
  send: (message: unknown) => void
  /** The JSON-RPC answer to request `id`, once it is on stdout. */
  answer: (id: number) => Promise<Record<string, unknown>>
}

function lines (text: string): Array<Record<string, unknown>> {
  return text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, unknown>)
}

/** Runs `node <entry> ...args` in the sandbox with pipes on all three streams; killed after the test. */
export function launch (t: TestContext, box: Sandbox, entry: string, args: string[], nodeOptions: string[] = []): Launched {
  const child = spawn(process.execPath, [...nodeOptions, entry, ...args], { cwd: box.dir, env: box.env, stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  const exited = new Promise<{ code: number | null, signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  const answer = async (id: number): Promise<Record<string, unknown>> => {
    const find = (): Record<string, unknown> | undefined => lines(stdout.slice(0, stdout.lastIndexOf('\n') + 1)).find((line) => line.id === id)
    await waitFor(() => find() !== undefined, `the answer to request ${id}; stderr:\n${stderr}`)
    return find()!
  }
  return { child, stdout: () => stdout, stderr: () => stderr, exited, send: (message) => child.stdin!.write(`${JSON.stringify(message)}\n`), answer }
}

/** The initialize handshake of a client, by hand. */
export async function initialize (gateway: Launched): Promise<void> {
  gateway.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'by-hand', version: '1' } } })
  await gateway.answer(1)
  gateway.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
}

/** Waits for the exit, failing with the output when it does not come. */
export async function exitOf (gateway: Launched): Promise<{ code: number | null, signal: NodeJS.Signals | null }> {
  return await withTimeout(gateway.exited, WAIT_MS, () => { throw new Error(`no exit within ${WAIT_MS} ms; stderr:\n${gateway.stderr()}`) })
}

/** Pids of the processes whose command line holds `marker`. */
export function processesWith (marker: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(marker)) found.push(Number(entry))
    } catch {} // exited while we looked
  }
  return found
}

/** Local TCP ports process `pid` listens on (from its socket fds and /proc/net/tcp{,6}). */
export function listeningPorts (pid: number): number[] {
  const inodes = new Set<string>()
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))
      if (match) inodes.add(match[1])
    } catch {} // closed while we looked
  }
  const ports: number[] = []
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const row of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = row.trim().split(/\s+/)
      // local_address is field 1 (hex ip:port), st field 3 (0A = LISTEN), inode field 9.
      if (fields[3] === '0A' && inodes.has(fields[9])) ports.push(parseInt(fields[1].split(':')[1], 16))
    }
  }
  return ports
}
