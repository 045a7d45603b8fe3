// Builds a real app for route tests: a config from a controlled environment, no built-in tools
// (TOOLS_DIR is an empty temp folder) unless asked, and a logger the test can read.
import { mkdtemp, mkdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app/app.ts'
import { loadConfig } from '../../src/config/load.ts'
import type { GatewayConfig } from '../../src/config/schema.ts'
import { createLogger } from '../../src/app/logger.ts'
import type { Tracer } from '../../src/tracing/tracer.ts'
import { captureLogger, type CapturedLogger } from './logger.ts'

export interface TestApp {
  app: FastifyInstance
  config: GatewayConfig
  log: CapturedLogger
  dir: string
}

interface TestContext { after: (fn: () => Promise<void> | void) => void }

export async function buildTestApp (t: TestContext, env: Record<string, string> = {}, options: { builtins?: boolean, tracer?: Tracer } = {}): Promise<TestApp> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-app-'))
  const emptyTools = join(dir, 'no-tools')
  await mkdir(emptyTools)
  const fullEnv = {
    ...(options.builtins ? {} : { TOOLS_DIR: emptyTools }),
    WORKSPACE_ROOT: join(dir, 'workspace'),
    LOG_LEVEL: 'info',
    ...env
  }
  const config = await loadConfig({ env: fullEnv, cwd: dir })
  const log = captureLogger(config.logLevel as 'info')
  // app.reload() reads the same environment again (and the file it names, as it is then).
  const reload = { load: () => loadConfig({ env: fullEnv, cwd: dir }) }
  const app = await buildApp(config, { logger: createLogger(config, log.stream), env, reload, tracer: options.tracer })
  t.after(async () => {
    await app.close()
    await rm(dir, { recursive: true, force: true })
  })
  return { app, config, log, dir }
}
