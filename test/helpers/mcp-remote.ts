// mcp-remote (the stdio-to-HTTP bridge Claude Desktop users run) as a child process, driven by hand:
// JSON-RPC lines on its stdin and stdout, its stderr kept and searched (the authorization URL is
// printed there). Its whole environment is given: HOME and MCP_REMOTE_CONFIG_DIR in a temp folder,
// and no browser can start: PATH holds only stubs named as the openers it tries (gio, x-www-browser,
// sensible-browser, xdg-open), BROWSER names the same stub, and the stub records what it was asked to
// open and fails. Every wait is bounded; the child is ended in t.after (stdin closed, then SIGKILL).
import { spawn, type ChildProcess } from 'node:child_process'
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { withTimeout } from '../../src/shared/timers.ts'

/** The package's bin (`npx mcp-remote`). */
export const MCP_REMOTE = fileURLToPath(new URL('../../node_modules/mcp-remote/dist/proxy.js', import.meta.url))
/** Bound on each wait: the child loads a 1.4 MB bundle, on a possibly busy machine. */
export const WAIT_MS = 20_000
/** How long a closed stdin may take to end the child before SIGKILL. */
const EXIT_GRACE_MS = 3000

interface TestContext { after: (fn: () => Promise<void> | void) => void }

export interface JsonRpcAnswer { jsonrpc: '2.0', id: number, result?: any, error?: { code: number, message: string, data?: unknown } }

export interface McpRemoteFolders {
  /** HOME of the child; nothing may land in its ~/.mcp-auth. */
  home: string
  /** MCP_REMOTE_CONFIG_DIR: where it keeps clients, tokens and its debug log. */
  configDir: string
  /** What the stub openers were asked to open: `<opener> <args>` a line. */
  browserLog: string
  /** The child's whole environment. */
  env: Record<string, string>
}

export interface McpRemote {
  child: ChildProcess
  folders: McpRemoteFolders
  stderr: () => string
  exited: Promise<{ code: number | null, signal: NodeJS.Signals | null }>
  /** Sends a request with the next id and resolves with its answer (an error answer too). */
  request: (method: string, params?: Record<string, unknown>) => Promise<JsonRpcAnswer>
  notify: (method: string, params?: Record<string, unknown>) => void
  /** The first match of `pattern` on stderr, already written or still to come. */
  waitForStderr: (pattern: RegExp, what: string) => Promise<RegExpExecArray>
  /** Closes stdin (mcp-remote's way to shut down) and waits for the exit. */
  close: () => Promise<void>
}

// mcp-remote runs the `open` package (its own xdg-open script, which finds no tool on this PATH and
// gives up), then /usr/bin/xdg-open (absent here; elsewhere it would reach BROWSER), then these by name.
const OPENERS = ['gio', 'x-www-browser', 'sensible-browser', 'xdg-open', 'www-browser']

/** A temp HOME, config folder, PATH of stub openers and BROWSER stub, removed after the test. */
export async function mcpRemoteFolders (t: TestContext): Promise<McpRemoteFolders> {
  const root = await mkdtemp(join(tmpdir(), 'gw-mcp-remote-'))
  t.after(() => rm(root, { recursive: true, force: true }))
  const [home, configDir, bin] = [join(root, 'home'), join(root, 'mcp-auth'), join(root, 'bin')]
  await Promise.all([mkdir(home), mkdir(configDir), mkdir(bin)])
  const browserLog = join(root, 'browser.log')
  // Shell builtins only: PATH has nothing else.
  const stub = `#!/bin/sh\nprintf '%s %s\\n' "\${0##*/}" "$*" >> '${browserLog}'\nexit 1\n`
  for (const name of [...OPENERS, 'no-browser']) {
    await writeFile(join(bin, name), stub)
    await chmod(join(bin, name), 0o755)
  }
  return { home, configDir, browserLog, env: { PATH: bin, HOME: home, MCP_REMOTE_CONFIG_DIR: configDir, BROWSER: join(bin, 'no-browser') } }
}

/** What the stub openers were asked to open, in order: the opener's name and the URL. */
export async function browserOpened (folders: McpRemoteFolders): Promise<Array<{ opener: string, url: string }>> {
  const text = await readFile(folders.browserLog, 'utf8').catch(() => '')
  return text.split('\n').filter((line) => line !== '').map((line) => {
    const words = line.split(' ')
    return { opener: words[0] ?? '', url: words.at(-1) ?? '' }
  })
}

/** The files mcp-remote keeps for its servers (`<hash>_tokens.json` ...), by name without the hash. */
export async function storedFiles (folders: McpRemoteFolders): Promise<string[]> {
  const store = join(folders.configDir, 'mcp-remote-v1')
  const names = await readdir(store).catch(() => [])
  return names.map((name) => name.replace(/^[0-9a-f]{32}_/, '')).sort()
}

function bounded<T> (promise: Promise<T>, what: string, stderr: () => string): Promise<T> {
  return withTimeout(promise, WAIT_MS, () => { throw new Error(`mcp-remote: ${what}: nothing after ${WAIT_MS} ms; its stderr:\n${stderr()}`) })
}

/** Starts `node node_modules/mcp-remote/dist/proxy.js ...args` with the folders' environment. */
export function startMcpRemote (t: TestContext, folders: McpRemoteFolders, args: string[]): McpRemote {
  const child = spawn(process.execPath, [MCP_REMOTE, ...args], { cwd: folders.home, env: folders.env, stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  const stderrWaiters = new Set<() => void>()
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
    for (const check of stderrWaiters) check()
  })
  // A child that is gone is reported by `exited`; these must not crash the test process meanwhile.
  child.on('error', (err) => { stderr += `\n[spawn error] ${err.message}\n` })
  child.stdin!.on('error', () => {})
  const answers = new Map<number, (answer: JsonRpcAnswer) => void>()
  // Its stdout is the MCP stream: a line there that is not JSON is a bug, failing every wait.
  const broken = Promise.withResolvers<never>()
  broken.promise.catch(() => {})
  let pending = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk
    const lines = pending.split('\n')
    pending = lines.pop() ?? ''
    for (const line of lines.filter((one) => one.trim() !== '')) {
      let message: JsonRpcAnswer & { method?: string }
      try {
        message = JSON.parse(line)
      } catch {
        broken.reject(new Error(`mcp-remote wrote a line to stdout that is not JSON-RPC: ${line}`))
        continue
      }
      // Requests and notifications it forwards from the server may carry ids too; only answers count.
      if (message.method !== undefined) continue
      answers.get(message.id)?.(message)
      answers.delete(message.id)
    }
  })
  // 'close', not 'exit': its stderr is complete by then.
  const exited = new Promise<{ code: number | null, signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })))
  const running = (): boolean => child.exitCode === null && child.signalCode === null
  const close = async (): Promise<void> => {
    if (!running()) return
    child.stdin!.end()
    const exit = await withTimeout(exited, EXIT_GRACE_MS, () => undefined)
    if (exit !== undefined) return
    child.kill('SIGKILL')
    await exited
  }
  t.after(close)

  let nextId = 1
  const send = (message: Record<string, unknown>): void => { child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`) }
  return {
    child,
    folders,
    stderr: () => stderr,
    exited,
    request: async (method, params) => {
      const id = nextId++
      const { promise, resolve } = Promise.withResolvers<JsonRpcAnswer>()
      answers.set(id, resolve)
      send({ id, method, ...(params === undefined ? {} : { params }) })
      const gone = exited.then((exit) => { throw new Error(`mcp-remote exited (${JSON.stringify(exit)}) before answering ${method}; its stderr:\n${stderr}`) })
      return await bounded(Promise.race([promise, gone, broken.promise]), `the answer to ${method}`, () => stderr)
    },
    notify: (method, params) => { send({ method, ...(params === undefined ? {} : { params }) }) },
    waitForStderr: async (pattern, what) => {
      const { promise, resolve, reject } = Promise.withResolvers<RegExpExecArray>()
      const check = (): void => {
        const match = pattern.exec(stderr)
        if (match === null) return
        stderrWaiters.delete(check)
        resolve(match)
      }
      stderrWaiters.add(check)
      check()
      exited.then((exit) => { if (stderrWaiters.delete(check)) reject(new Error(`mcp-remote exited (${JSON.stringify(exit)}) before ${what}; its stderr:\n${stderr}`)) }, () => {})
      return await bounded(promise, what, () => stderr)
    },
    close
  }
}
