// Loads the real built-in tools into the gateway's core (test/helpers/gateway.ts) with a real
// config, so tool tests call tools exactly as the gateway does, without HTTP; a cut result is not kept.
import { mkdtemp, mkdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AvailabilityChecker } from '../../src/availability/checker.ts'
import type { GatewayConfig } from '../../src/config/schema.ts'
import type { DefinitionsBuilder } from '../../src/definitions/definitions.ts'
import { discoverTools } from '../../src/discovery/discover.ts'
import type { Dispatcher } from '../../src/dispatch/dispatcher.ts'
import type { DispatchRequest } from '../../src/dispatch/call/pipeline.ts'
import type { ToolRegistry } from '../../src/registry/registry.ts'
import { buildTestGateway, callsOf, FRESH_AVAILABILITY, NO_KEPT_RESULTS, type Calls } from './gateway.ts'
import type { CapturedLogger } from './logger.ts'

export interface ToolHarness extends Calls {
  registry: ToolRegistry
  dispatcher: Dispatcher
  availability: AvailabilityChecker
  definitions: DefinitionsBuilder
  config: GatewayConfig
  log: CapturedLogger
  /** A fresh temp folder, used as WORKSPACE_ROOT unless env sets one. */
  tempDir: string
  /** The parsed JSON content of a call. */
  json: (name: string, args: unknown, extra?: Partial<DispatchRequest>) => Promise<Record<string, unknown>>
  close: () => Promise<void>
}

/** `env` is the whole environment the config sees (nothing leaks in from the test process). */
export async function createToolHarness (env: Record<string, string> = {}): Promise<ToolHarness> {
  const tempDir = await mkdtemp(join(tmpdir(), 'gw-tools-'))
  const workspace = join(tempDir, 'workspace')
  await mkdir(workspace, { recursive: true })
  // Availability tests see configuration changes at once.
  const { gateway, config, log } = await buildTestGateway({ env: { WORKSPACE_ROOT: workspace, LOG_LEVEL: 'silent', ...NO_KEPT_RESULTS, ...env }, cwd: tempDir, availability: FRESH_AVAILABILITY })
  const { registry, dispatcher, availability, definitions } = gateway
  // The built-in tools only, not gateway.start(): its tools' `prepare`, run in the background, would
  // measure the workspace before a test puts its files there; here a tool prepares at its first use.
  await discoverTools({ dir: config.toolsDir, registry, logger: log.logger })
  const calls = callsOf(dispatcher)
  return {
    registry,
    dispatcher,
    availability,
    definitions,
    config,
    log,
    tempDir,
    ...calls,
    json: async (name, args, extra) => JSON.parse((await calls.call(name, args, extra)).content) as Record<string, unknown>,
    close: async () => {
      await gateway.stop()
      await rm(tempDir, { recursive: true, force: true })
    }
  }
}
