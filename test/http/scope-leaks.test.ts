// What a key limited to toolsets must not learn: /toolsets shows it only its own toolsets and what
// they include (not a composite that merely contains some of its tools, whose description and
// includes name the rest), /metrics, whose labels name every tool, is for operators only, and the
// OpenAPI document and Swagger UI name no tool or toolset at all (they describe the routes only).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app/app.ts'
import { loadConfig } from '../../src/config/load.ts'
import { createLogger } from '../../src/app/logger.ts'
import { captureLogger } from '../helpers/logger.ts'
import { fixtureTool } from '../helpers/tools.ts'

const OPERATOR_KEY = 'operator-key-0c1d2e3f'
const LIMITED_KEY = 'limited-key-4a5b6c7d'
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')
const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

interface TestContext { after: (fn: () => Promise<void> | void) => void }

/** Keys `operator` (every toolset) and `limited` (toolset x); tools alpha in x, beta in y; `combo` includes x and y. */
async function scopedApp (t: TestContext, env: Record<string, string> = {}): Promise<FastifyInstance> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-leaks-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, 'gateway.yaml'), [
    'auth:',
    '  keys:',
    `    - { name: operator, sha256: ${sha256(OPERATOR_KEY)} }`,
    `    - { name: limited, sha256: ${sha256(LIMITED_KEY)}, toolsets: [x] }`,
    'toolsets:',
    '  combo: { description: "Payroll and alpha together", includes: [x, y] }',
    '  inner: { description: "Only alpha", includes: [x] }',
    '  x-plus: { includes: [inner] }',
    ''
  ].join('\n'))
  const config = await loadConfig({ cwd: dir, env: { GATEWAY_CONFIG: 'gateway.yaml', TOOLS_DIR: join(dir, 'none'), WORKSPACE_ROOT: join(dir, 'ws'), LOG_LEVEL: 'silent', ...env } })
  const app = await buildApp(config, { logger: createLogger(config, captureLogger().stream) })
  t.after(() => app.close())
  app.gateway.registry.register(fixtureTool('alpha', { toolset: 'x' }))
  app.gateway.registry.register(fixtureTool('beta_payroll', { toolset: 'y' }))
  return app
}

test('/toolsets shows a limited key its own toolsets and their includes, never a toolset that reaches outside them', async (t) => {
  const app = await scopedApp(t)
  const limited = await app.inject({ url: '/toolsets', headers: bearer(LIMITED_KEY) })
  assert.equal(limited.statusCode, 200)
  assert.deepEqual(limited.json().toolsets.map((set: { name: string }) => set.name), ['x'])
  for (const secret of ['combo', 'Payroll', 'beta_payroll', '"y"', 'x-plus', 'inner']) assert.ok(!limited.body.includes(secret), `${secret} leaked: ${limited.body}`)
  // The operator sees them all.
  const operator = await app.inject({ url: '/toolsets', headers: bearer(OPERATOR_KEY) })
  assert.deepEqual(operator.json().toolsets.map((set: { name: string }) => set.name).filter((name: string) => !['debugging', 'file', 'results', 'safe', 'terminal', 'web'].includes(name)),
    ['combo', 'inner', 'x', 'x-plus', 'y'])
})

test('/metrics, whose labels name tools, needs an operator key: not open, not a limited key', async (t) => {
  const app = await scopedApp(t)
  await app.inject({ method: 'POST', url: '/dispatch/beta_payroll', headers: bearer(OPERATOR_KEY), payload: {} })
  const anonymous = await app.inject({ url: '/metrics' })
  assert.equal(anonymous.statusCode, 401)
  assert.equal(anonymous.json().code, 'GW_ERR_UNAUTHORIZED')
  const limited = await app.inject({ url: '/metrics', headers: bearer(LIMITED_KEY) })
  assert.equal(limited.statusCode, 403)
  assert.match(limited.json().message, /not limited to toolsets/)
  assert.doesNotMatch(limited.body, /beta_payroll/)
  const operator = await app.inject({ url: '/metrics', headers: bearer(OPERATOR_KEY) })
  assert.equal(operator.statusCode, 200)
  assert.match(operator.body, /gateway_tool_calls_total\{tool="beta_payroll",status="ok"\} 1/)
})

test('METRICS_PUBLIC=true opens /metrics to scrapers without a key, as the operator chose', async (t) => {
  const app = await scopedApp(t, { METRICS_PUBLIC: 'true' })
  const anonymous = await app.inject({ url: '/metrics' })
  assert.equal(anonymous.statusCode, 200)
  assert.match(anonymous.body, /gateway_tool_calls_in_flight/)
})

test('the OpenAPI document and Swagger UI name no tool or toolset of the gateway: a limited key gets what every caller gets', async (t) => {
  const app = await scopedApp(t)
  const pages = ['/documentation/json', '/documentation/yaml', '/documentation', '/documentation/static/swagger-initializer.js']
  for (const url of pages) {
    const limited = await app.inject({ url, headers: bearer(LIMITED_KEY) })
    assert.equal(limited.statusCode, 200, url)
    for (const name of ['alpha', 'beta_payroll', 'Payroll', 'combo', 'x-plus', 'Only alpha']) assert.ok(!limited.body.includes(name), `${url} names ${name}`)
    const operator = await app.inject({ url, headers: bearer(OPERATOR_KEY) })
    assert.equal(operator.body, limited.body, `${url} is the same for every key`)
  }
  // Built from the routes' schemas only: a tool registered later changes nothing.
  app.gateway.registry.register(fixtureTool('gamma_ledger', { toolset: 'y' }))
  assert.ok(!(await app.inject({ url: '/documentation/json', headers: bearer(LIMITED_KEY) })).body.includes('gamma_ledger'))
  assert.equal((await app.inject({ url: '/documentation/json' })).statusCode, 401, 'and it needs a key')
})
