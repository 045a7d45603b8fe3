// The gateway's core (test/helpers/gateway.ts) around an McpManager of the test's own, whose clock and
// tuning the test sets, wired as the core wires its own (the checker forgets its verdicts whenever a
// server changes state). The core's dispatcher keeps no results here.
import assert from 'node:assert/strict'
import { tmpdir } from 'node:os'
import { fileURLToPath } from 'node:url'
import type { AvailabilityChecker } from '../../../src/availability/checker.ts'
import type { McpServerConfig } from '../../../src/config/schema.ts'
import type { DefinitionsBuilder } from '../../../src/definitions/definitions.ts'
import type { Dispatcher } from '../../../src/dispatch/dispatcher.ts'
import { McpManager, type McpManagerOptions } from '../../../src/mcp-client/manager.ts'
import type { ToolRegistry } from '../../../src/registry/registry.ts'
import { buildTestGateway, callsOf, NO_KEPT_RESULTS, type Calls } from '../../helpers/gateway.ts'
import { captureLogger, type CapturedLogger } from '../../helpers/logger.ts'

export const EVERYTHING_SERVER = fileURLToPath(new URL('../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url))

export function everythingConfig (extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'], ...extra } as McpServerConfig
}

export interface McpHarness extends Calls {
  registry: ToolRegistry
  availability: AvailabilityChecker
  dispatcher: Dispatcher
  definitions: DefinitionsBuilder
  manager: McpManager
  log: CapturedLogger
}

export async function createMcpHarness (servers: Record<string, McpServerConfig>, options: Partial<McpManagerOptions> = {}): Promise<McpHarness> {
  // The production availability defaults (30 s cache, 60 s grace): state changes must still show at once.
  const { gateway, log } = await buildTestGateway({ env: { LOG_LEVEL: 'silent', ...NO_KEPT_RESULTS }, cwd: tmpdir(), log: captureLogger('debug') })
  const { registry, availability, dispatcher, definitions } = gateway
  const manager = new McpManager({ servers, registry, logger: log.logger, ...options })
  manager.on('state', () => availability.clear())
  return { registry, availability, dispatcher, definitions, manager, log, ...callsOf(dispatcher) }
}

/**
 * A harness connected to one HTTP upstream a test has started (`server`, closed after the test with
 * the manager), in revision `protocol`, with quick reconnects and no pings: connected, or the test fails.
 */
export async function connectedHarness (t: { after: (fn: () => Promise<void>) => void }, name: string, server: { url: string, close: () => Promise<void> }, protocol: string): Promise<McpHarness> {
  const h = await createMcpHarness({ [name]: { url: server.url, protocol } as McpServerConfig }, { tuning: { backoffBaseMs: 20, pingIntervalMs: 0 } })
  t.after(async () => {
    await h.manager.stop()
    await server.close()
  })
  h.manager.start()
  await h.manager.ready()
  assert.equal(h.manager.states()[0].state, 'connected', h.manager.states()[0].lastError ?? '')
  return h
}
