// One trial's servers, started afresh one after the other (so no start-up competes with another):
// the gateway with its built-in tools (plus the echo tool), the gateway with 1 000 more tools when a
// group needs it, then the floor, given the gateway's /definitions bytes to serve. Each server's RSS
// is read once it settled after start; the scenarios of the selected groups are built and probed.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FloorSpec } from './floor-server.ts'
import type { Fixtures } from './fixtures.ts'
import { startGateway, stopGateway, type Gateway } from './gateway-process.ts'
import type { Scenario, Target } from './measure.ts'
import { readFileScenarios, toolsListScenarios, type McpStatic } from './mcp-trial.ts'
import { rssBytes } from './proc.ts'
// The tests' redis-server (Debian's package, installed when missing), stopped by the trial itself.
import { startRedis, type TestRedis } from '../test/helpers/redis-server.ts'
import { definitionsPair, dispatchScenarios, fetchDefinitions, sharedWritePair, type Sizes, type StaticBytes } from './scenarios.ts'
import { startFloor, stopFloor, type Server } from './server-process.ts'
import { SETTLE_MS, type ScenarioGroup } from './settings.ts'

export interface Trial {
  scenarios: Scenario[]
  /** Every server of the trial, by label, with its RSS once settled after start. */
  servers: Array<{ target: Target, rssAfterStart: number }>
  sizes: Sizes
  stop: () => Promise<void>
}

const LOAD_GROUPS: readonly ScenarioGroup[] = ['read', 'write', 'search', 'echo', 'batch', 'definitions', 'mcp-call', 'mcp-list', 'shared']

/** Whether the trial has anything to load (the startup group alone has not). */
export const hasLoad = (groups: readonly ScenarioGroup[]): boolean => groups.some((group) => LOAD_GROUPS.includes(group))

async function settled (target: Target): Promise<{ target: Target, rssAfterStart: number }> {
  await sleep(SETTLE_MS)
  return { target, rssAfterStart: await rssBytes(target.pid) }
}

async function staticFile (scratch: string, bytes: StaticBytes | McpStatic): Promise<FloorSpec['statics'][number]> {
  const file = join(scratch, `${bytes.pair}.static`)
  await writeFile(file, bytes.bytes)
  return { file, contentType: bytes.contentType, method: 'method' in bytes ? bytes.method : 'GET', url: bytes.url }
}

/** `shared`: the gateway on Redis (the last of `gateways`) and the Redis itself. */
interface Started { gateways: Gateway[], floor?: Server, shared?: { gateway: Gateway, redis: TestRedis } }

async function buildScenarios (groups: readonly ScenarioGroup[], fixtures: Fixtures, scratch: string, started: Started, trial: Trial): Promise<void> {
  const [builtins, many] = started.gateways
  const definitions: StaticBytes[] = []
  const mcp: McpStatic[] = []
  if (groups.includes('definitions')) {
    definitions.push(await fetchDefinitions('definitions-builtins', builtins, '/definitions-builtins'))
    definitions.push(await fetchDefinitions('definitions-1000', many, '/definitions-1000'))
  }
  const mcpList = groups.includes('mcp-list') ? await toolsListScenarios(many, trial.sizes) : undefined
  if (mcpList !== undefined) mcp.push(...mcpList.bytes)
  const statics = await Promise.all([...definitions, ...mcp].map(async (bytes) => await staticFile(scratch, bytes)))
  started.floor = await startFloor({ workspace: fixtures.workspace, statics, mcp: groups.includes('mcp-call'), redisUrl: started.shared?.redis.url })
  trial.servers.push(await settled(started.floor))
  const floor = started.floor
  trial.scenarios.push(...await dispatchScenarios(groups, builtins, floor, trial.sizes))
  for (const bytes of definitions) trial.scenarios.push(...await definitionsPair(bytes, bytes.pair.endsWith('1000') ? many : builtins, floor, trial.sizes))
  if (groups.includes('mcp-call')) trial.scenarios.push(...await readFileScenarios(fixtures.workspace, builtins, floor, trial.sizes))
  if (mcpList !== undefined) trial.scenarios.push(...await mcpList.scenarios(floor))
  if (started.shared !== undefined) trial.scenarios.push(...await sharedWritePair(started.shared.gateway, floor, trial.sizes))
}

/** The replicas' scenario: a Redis, and a gateway on it with a rate limit (as a replica runs). */
async function startShared (fixtures: Fixtures, scratch: string, started: Started, trial: Trial): Promise<void> {
  // No test context: the trial's stop() kills it.
  const redis = await startRedis({ after: () => {} })
  let gateway: Gateway
  try {
    gateway = await startGateway({ label: 'gateway-redis', workspace: fixtures.workspace, cwd: scratch, env: { REDIS_URL: redis.url, RATE_LIMIT_MAX: '1000000000' } })
  } catch (err) {
    await redis.kill()
    throw err
  }
  started.shared = { gateway, redis }
  started.gateways.push(gateway)
  trial.servers.push(await settled(gateway))
}

/** Starts the servers of the selected groups afresh, checks each answers what we think, and builds the scenarios. */
export async function startTrial (scratch: string, fixtures: Fixtures, groups: readonly ScenarioGroup[]): Promise<Trial> {
  const started: Started = { gateways: [] }
  const trial: Trial = {
    scenarios: [],
    servers: [],
    sizes: {},
    stop: async () => {
      for (const gateway of started.gateways) await stopGateway(gateway)
      if (started.floor !== undefined) await stopFloor(started.floor)
      if (started.shared !== undefined) await started.shared.redis.kill()
    }
  }
  try {
    const builtins = await startGateway({ label: 'gateway-builtins', workspace: fixtures.workspace, extraToolsDir: fixtures.echoTools, cwd: scratch })
    started.gateways.push(builtins)
    trial.servers.push(await settled(builtins))
    if (groups.includes('definitions') || groups.includes('mcp-list')) {
      const many = await startGateway({ label: 'gateway-1000-tools', workspace: fixtures.workspace, extraToolsDir: fixtures.manyTools, cwd: scratch })
      started.gateways.push(many)
      trial.servers.push(await settled(many))
    }
    if (groups.includes('shared')) await startShared(fixtures, scratch, started, trial)
    await buildScenarios(groups, fixtures, scratch, started, trial)
    return trial
  } catch (err) {
    await trial.stop()
    throw err
  }
}
