// A config that names a toolset that does not exist (a key's toolsets, a custom toolset's includes)
// still starts, but says so: a warning at start with the closest valid names, and the same list in
// GET /toolsets for operators. A key limited to toolsets is not shown the config of others.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { buildApp } from '../../src/app/app.ts'
import { loadConfig } from '../../src/config/load.ts'
import { createLogger } from '../../src/app/logger.ts'
import { captureLogger } from '../helpers/logger.ts'

const OPERATOR_KEY = 'operator-key-1f2e3d4c'
const AGENT_KEY = 'agent-key-9a8b7c6d'
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')

test('unknown toolsets named by the config are warned about at start with the closest names, and listed in /toolsets', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-refs-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, 'gateway.yaml'), [
    'auth:',
    '  keys:',
    `    - { name: operator, sha256: ${sha256(OPERATOR_KEY)} }`,
    `    - { name: agent, sha256: ${sha256(AGENT_KEY)}, toolsets: [webb, file] }`,
    'toolsets:',
    '  research: { includes: [web, fiel] }',
    ''
  ].join('\n'))
  const config = await loadConfig({ cwd: dir, env: { GATEWAY_CONFIG: 'gateway.yaml', TOOLS_DIR: join(dir, 'no-tools'), WORKSPACE_ROOT: join(dir, 'ws'), LOG_LEVEL: 'info' } })
  const log = captureLogger()
  const app = await buildApp(config, { logger: createLogger(config, log.stream) })
  t.after(() => app.close())

  const warnings = log.lines().filter((line) => line.level === 40 && line.msg === 'the configuration names a toolset that does not exist')
  assert.deepEqual(warnings.map((line) => [line.where, line.toolset, line.closest]), [
    ['auth.keys.1.toolsets (key "agent")', 'webb', ['web']],
    ['toolsets.research.includes', 'fiel', ['file']]
  ])

  const operator = await app.inject({ url: '/toolsets', headers: { authorization: `Bearer ${OPERATOR_KEY}` } })
  assert.equal(operator.statusCode, 200)
  assert.deepEqual(operator.json().unknownReferences, [
    { where: 'auth.keys.1.toolsets (key "agent")', toolset: 'webb', closest: ['web'] },
    { where: 'toolsets.research.includes', toolset: 'fiel', closest: ['file'] }
  ])
  const agent = await app.inject({ url: '/toolsets', headers: { authorization: `Bearer ${AGENT_KEY}` } })
  assert.equal(agent.statusCode, 200)
  assert.deepEqual(agent.json().unknownReferences, [], 'a limited key is not shown the configuration')
})
