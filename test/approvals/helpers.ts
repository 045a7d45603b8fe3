// A gateway whose `wipe` tool (and, by annotation, every destructive one) waits for a person's
// approval (trust.approval), with an operator key, two callers and a key limited to a toolset.
import { createHash } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'

export const KEYS = {
  ops: 'ops-key-0123456789abcdef000',
  alice: 'alice-key-0123456789abcdef',
  bob: 'bob-key-0123456789abcdef00',
  limited: 'limited-key-0123456789abcd'
}
const sha256 = (key: string): string => createHash('sha256').update(key).digest('hex')
export const as = (name: keyof typeof KEYS): Record<string, string> => ({ authorization: `Bearer ${KEYS[name]}` })

type Context = Parameters<typeof buildTestApp>[0]

/** The app, and the arguments each run of `wipe` got. */
export async function approvalGateway (t: Context, timeoutMs = 60_000, env: Record<string, string> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'approvals-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'gateway.yaml')
  await writeFile(file, [
    'auth:',
    '  keys:',
    `    - { name: ops, sha256: ${sha256(KEYS.ops)} }`,
    `    - { name: alice, sha256: ${sha256(KEYS.alice)} }`,
    `    - { name: bob, sha256: ${sha256(KEYS.bob)} }`,
    `    - { name: limited, sha256: ${sha256(KEYS.limited)}, toolsets: [testing] }`,
    'trust:',
    '  approval: { tools: [wipe], annotations: [destructive] }',
    `  approvalTimeoutMs: ${timeoutMs}`,
    ''
  ].join('\n'))
  const built = await buildTestApp(t, { GATEWAY_CONFIG: file, AUTH_FAILURE_MAX: '1000', ...env })
  const ran: unknown[] = []
  const { registry } = built.app.gateway
  registry.register(fixtureTool('wipe', {
    annotations: { readOnly: false, destructive: false },
    schema: { description: 'Wipes a path', parameters: { type: 'object', properties: { path: { type: 'string' }, depth: { type: 'integer' } }, required: ['path'] } },
    handler: async (args) => { ran.push(args); return JSON.stringify({ wiped: args.path }) }
  }))
  registry.register(fixtureTool('drop_table', { handler: async () => 'dropped' }))
  registry.register(fixtureTool('look', { annotations: { readOnly: true }, handler: async () => 'looked' }))
  return { ...built, ran }
}
