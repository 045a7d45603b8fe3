// API keys for tests: a gateway.yaml naming keys (by the SHA-256 of each, as the configuration
// takes them) and whatever more a test needs, in a temp folder removed after the test.
import { createHash } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const sha256 = (key: string): string => createHash('sha256').update(key).digest('hex')
export const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` })

export interface TestKey {
  name: string
  key: string
  /** The toolsets it is limited to; none: every tool. */
  toolsets?: readonly string[]
}

/** The YAML of these keys under auth.keys, followed by `more` lines. */
export function keysYaml (keys: readonly TestKey[], more: readonly string[] = []): string {
  const rows = keys.map(({ name, key, toolsets }) => `    - { name: ${name}, sha256: ${sha256(key)}${toolsets === undefined ? '' : `, toolsets: [${toolsets.join(', ')}]`} }`)
  return ['auth:', '  keys:', ...rows, ...more, ''].join('\n')
}

/**
 * A folder holding gateway.yaml with `yaml` (a test may write more files there, an audit log): its
 * path and the file's. Removed after the test, retried while an app closed just before still
 * finishes writing into it.
 */
export async function configFolder (t: { after: (fn: () => Promise<void>) => void }, yaml: string): Promise<{ dir: string, file: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-config-'))
  t.after(async () => { await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }) })
  const file = join(dir, 'gateway.yaml')
  await writeFile(file, yaml)
  return { dir, file }
}
