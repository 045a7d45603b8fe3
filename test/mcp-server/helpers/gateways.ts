// Two real gateways on loopback for the round-trip tests: A serves the built-in tools (a temp
// workspace, API keys) at /mcp; B has A's /mcp as its upstream MCP server "a". Each is a real
// Fastify app listening on a real port; A can be closed and started again on the same port.
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../../src/app/app.ts'
import { loadConfig } from '../../../src/config/load.ts'
import { createLogger } from '../../../src/app/logger.ts'
import { captureLogger, type CapturedLogger } from '../../helpers/logger.ts'

export const OPERATOR_KEY = 'operator-key-5f1e2d3c'
export const FILES_KEY = 'files-only-key-9a8b7c6d'
export const WRONG_KEY = 'not-a-key-of-a-0000'

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')

interface TestContext { after: (fn: () => Promise<void> | void) => void }

export interface RunningGateway {
  app: FastifyInstance
  /** http://127.0.0.1:<port> */
  base: string
  port: number
  /** Its log lines, read by tests that wait for what it did. */
  log: CapturedLogger
}

async function tempDir (t: TestContext, prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** One gateway from a JSON config written in `dir`; built-in tools only when `builtins`. */
async function startGateway (dir: string, config: object, builtins: boolean, port = 0): Promise<RunningGateway> {
  const file = join(dir, 'gateway.json')
  await writeFile(file, JSON.stringify(config))
  await mkdir(join(dir, 'no-tools'), { recursive: true })
  const env = {
    GATEWAY_CONFIG: file,
    WORKSPACE_ROOT: join(dir, 'workspace'),
    LOG_LEVEL: 'debug',
    ...(builtins ? {} : { TOOLS_DIR: join(dir, 'no-tools') })
  }
  const loaded = await loadConfig({ env, cwd: dir })
  const log = captureLogger('debug')
  const app = await buildApp(loaded, { logger: createLogger(loaded, log.stream), env })
  const address = await app.listen({ host: '127.0.0.1', port })
  const listening = Number(new URL(address).port)
  return { app, base: `http://127.0.0.1:${listening}`, port: listening, log }
}

export interface GatewayA {
  current: RunningGateway
  /** Its workspace folder, where the tests put real files. */
  workspace: string
  /** Closes A and starts a new A (fresh registry, no sessions) on the same port. */
  restart: () => Promise<RunningGateway>
}

/** Gateway A: built-in tools, keys `operator` (everything) and `files` (the file toolset only). */
export async function startGatewayA (t: TestContext): Promise<GatewayA> {
  const dir = await tempDir(t, 'gw-a-')
  const config = {
    auth: {
      keys: [
        { name: 'operator', sha256: sha256(OPERATOR_KEY) },
        { name: 'files', sha256: sha256(FILES_KEY), toolsets: ['file'] }
      ]
    },
    mcp: { sessionIdleMs: 60_000 }
  }
  const a: GatewayA = {
    current: await startGateway(dir, config, true),
    workspace: join(dir, 'workspace'),
    restart: async () => {
      const { port } = a.current
      await a.current.app.close()
      a.current = await startGateway(dir, config, true, port)
      return a.current
    }
  }
  t.after(() => a.current.app.close())
  return a
}

/** Gateway B: no tools of its own, open on loopback, A's /mcp as upstream "a" reached with `key`, in `protocol` (default: auto). */
export async function startGatewayB (t: TestContext, a: RunningGateway, key: string, protocol?: string): Promise<RunningGateway> {
  return await startGatewayOf(t, {
    a: { url: `${a.base}/mcp`, headers: { Authorization: `Bearer ${key}` }, connectTimeoutMs: 10_000, ...(protocol === undefined ? {} : { protocol }) }
  })
}

/** A gateway with no tools of its own, open on loopback, with these upstream MCP servers. */
export async function startGatewayOf (t: TestContext, mcpServers: Record<string, object>): Promise<RunningGateway> {
  const dir = await tempDir(t, 'gw-b-')
  const b = await startGateway(dir, { mcpServers }, false)
  t.after(() => b.app.close())
  return b
}
