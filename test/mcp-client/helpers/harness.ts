// A registry, an availability checker and a real dispatcher around an McpManager, wired the way the
// gateway is meant to wire them (the checker forgets its verdicts whenever a server changes state).
import { fileURLToPath } from 'node:url'
import { AvailabilityChecker } from '../../../src/availability/checker.ts'
import type { McpServerConfig } from '../../../src/config/schema.ts'
import { Dispatcher } from '../../../src/dispatch/dispatcher.ts'
import type { Dispatched, DispatchOutcome } from '../../../src/dispatch/call/outcome.ts'
import type { DispatchRequest } from '../../../src/dispatch/call/pipeline.ts'
import { McpManager, type McpManagerOptions } from '../../../src/mcp-client/manager.ts'
import { ToolRegistry } from '../../../src/registry/registry.ts'
import { captureLogger, type CapturedLogger } from '../../helpers/logger.ts'

export const EVERYTHING_SERVER = fileURLToPath(new URL('../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url))

export function everythingConfig (extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'], ...extra } as McpServerConfig
}

export interface McpHarness {
  registry: ToolRegistry
  availability: AvailabilityChecker
  dispatcher: Dispatcher
  manager: McpManager
  log: CapturedLogger
  /** The envelope of a call. */
  call: (name: string, args: unknown, extra?: Partial<DispatchRequest>) => Promise<DispatchOutcome>
  /** The envelope of a call with its HTTP status and media's data beside it. */
  answer: (name: string, args: unknown, extra?: Partial<DispatchRequest>) => Promise<Dispatched>
}

export function createMcpHarness (servers: Record<string, McpServerConfig>, options: Partial<McpManagerOptions> = {}): McpHarness {
  const log = captureLogger('debug')
  const registry = new ToolRegistry({ logger: log.logger })
  // The production defaults (30 s cache, 60 s grace): state changes must still show at once.
  const availability = new AvailabilityChecker({ logger: log.logger })
  const dispatcher = new Dispatcher({ registry, availability, logger: log.logger })
  const manager = new McpManager({ servers, registry, logger: log.logger, ...options })
  manager.on('state', () => availability.clear())
  return {
    registry,
    availability,
    dispatcher,
    manager,
    log,
    call: async (name, args, extra = {}) => (await dispatcher.dispatch({ name, args, ...extra })).outcome,
    answer: async (name, args, extra = {}) => await dispatcher.dispatch({ name, args, ...extra })
  }
}
