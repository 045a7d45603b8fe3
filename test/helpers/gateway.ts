// The gateway's core for tests that use it without HTTP (tools, plugins, the MCP client): built by
// createGateway, as buildApp builds it, from a configuration loaded from a controlled environment,
// and logging where the test can read. The one place tests build the core: the harnesses start here.
import { loadConfig } from '../../src/config/load.ts'
import type { GatewayConfig } from '../../src/config/schema.ts'
import { createGateway, type Gateway } from '../../src/core/gateway.ts'
import type { Dispatched, DispatchOutcome } from '../../src/dispatch/call/outcome.ts'
import type { DispatchRequest } from '../../src/dispatch/call/pipeline.ts'
import type { Dispatcher } from '../../src/dispatch/dispatcher.ts'
import { captureLogger, type CapturedLogger } from './logger.ts'

export interface TestGatewayOptions {
  /** The whole environment the configuration sees (nothing leaks in from the test process). */
  env?: Record<string, string>
  /** Relative paths of the configuration resolve here. */
  cwd: string
  /** Replaces parts of the loaded availability settings (the configuration file has them, no variable). */
  availability?: Partial<GatewayConfig['availability']>
  log?: CapturedLogger
}

export interface TestGateway {
  gateway: Gateway
  /** The configuration the gateway runs with (the same object: a test may change it in place). */
  config: GatewayConfig
  log: CapturedLogger
}

/** Verdicts reused for 1 ms and no grace: a test sees a change of configuration or state at once. */
export const FRESH_AVAILABILITY = { ttlMs: 1, graceMs: 0 } as const

/** The dispatcher keeps no result (0 bytes for all): a cut result's notice says nothing is kept. */
export const NO_KEPT_RESULTS = { RESULTS_MAX_TOTAL_BYTES: '0' } as const

/** Built, not started: `gateway.start()` loads the tools (built-ins, MCP servers, plugins) as the app does. */
export async function buildTestGateway (options: TestGatewayOptions): Promise<TestGateway> {
  const env = options.env ?? {}
  const loaded = await loadConfig({ env, cwd: options.cwd })
  const config = options.availability === undefined ? loaded : { ...loaded, availability: { ...loaded.availability, ...options.availability } }
  const log = options.log ?? captureLogger()
  return { gateway: createGateway(config, log.logger, { env }), config, log }
}

export interface Calls {
  /** The envelope of a call. */
  call: (name: string, args: unknown, extra?: Partial<DispatchRequest>) => Promise<DispatchOutcome>
  /** The envelope of a call with its HTTP status and media's data beside it. */
  answer: (name: string, args: unknown, extra?: Partial<DispatchRequest>) => Promise<Dispatched>
}

export function callsOf (dispatcher: Dispatcher): Calls {
  const answer = async (name: string, args: unknown, extra: Partial<DispatchRequest> = {}): Promise<Dispatched> => await dispatcher.dispatch({ name, args, ...extra })
  return { answer, call: async (name, args, extra) => (await answer(name, args, extra)).outcome }
}
