// Loads the real built-in tools into a fresh registry with a real config and dispatcher, so tool
// tests call tools exactly as the gateway does, without HTTP.
import { mkdtemp, mkdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AvailabilityChecker } from '../../src/availability/checker.ts'
import { loadConfig } from '../../src/config/load.ts'
import type { GatewayConfig } from '../../src/config/schema.ts'
import { discoverTools } from '../../src/discovery/discover.ts'
import { Dispatcher } from '../../src/dispatch/dispatcher.ts'
import type { Dispatched, DispatchOutcome } from '../../src/dispatch/call/outcome.ts'
import type { DispatchRequest } from '../../src/dispatch/call/pipeline.ts'
import { ToolRegistry } from '../../src/registry/registry.ts'
import { captureLogger, type CapturedLogger } from './logger.ts'

export interface ToolHarness {
  registry: ToolRegistry
  dispatcher: Dispatcher
  availability: AvailabilityChecker
  config: GatewayConfig
  log: CapturedLogger
  /** A fresh temp folder, used as WORKSPACE_ROOT unless env sets one. */
  tempDir: string
  /** The envelope of a call. */
  call: (name: string, args: unknown, extra?: Partial<DispatchRequest>) => Promise<DispatchOutcome>
  /** The envelope of a call with its HTTP status and media's data beside it. */
  answer: (name: string, args: unknown, extra?: Partial<DispatchRequest>) => Promise<Dispatched>
  /** The parsed JSON content of a call. */
  json: (name: string, args: unknown, extra?: Partial<DispatchRequest>) => Promise<Record<string, unknown>>
  close: () => Promise<void>
}

/** `env` is the whole environment the config sees (nothing leaks in from the test process). */
export async function createToolHarness (env: Record<string, string> = {}): Promise<ToolHarness> {
  const tempDir = await mkdtemp(join(tmpdir(), 'gw-tools-'))
  const workspace = join(tempDir, 'workspace')
  await mkdir(workspace, { recursive: true })
  const config = await loadConfig({ env: { WORKSPACE_ROOT: workspace, LOG_LEVEL: 'silent', ...env }, cwd: tempDir })
  const log = captureLogger()
  const registry = new ToolRegistry({ logger: log.logger })
  await discoverTools({ dir: config.toolsDir, registry, logger: log.logger })
  // ttl 0 so availability tests see configuration changes at once.
  const availability = new AvailabilityChecker({ config: () => config, ttlMs: 1, graceMs: 0 })
  const dispatcher = new Dispatcher({ registry, availability, logger: log.logger, config: () => config })
  const answer = async (name: string, args: unknown, extra: Partial<DispatchRequest> = {}): Promise<Dispatched> => await dispatcher.dispatch({ name, args, ...extra })
  const call = async (name: string, args: unknown, extra: Partial<DispatchRequest> = {}): Promise<DispatchOutcome> => (await answer(name, args, extra)).outcome
  return {
    registry,
    dispatcher,
    availability,
    config,
    log,
    tempDir,
    call,
    answer,
    json: async (name, args, extra) => JSON.parse((await call(name, args, extra)).content) as Record<string, unknown>,
    close: async () => {
      for (const entry of registry.snapshot().tools.values()) await entry.dispose?.()
      await rm(tempDir, { recursive: true, force: true })
    }
  }
}
