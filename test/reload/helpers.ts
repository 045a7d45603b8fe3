// Apps for reload tests: a tools folder and a config file in a temp folder the test changes
// between reloads, the app reading both again on app.reload().
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildTestApp, type TestApp } from '../helpers/app.ts'

interface TestContext { after: (fn: () => Promise<void> | void) => void }

export interface ReloadApp extends TestApp {
  tools: string
  configFile: string
}

/** An app whose TOOLS_DIR (`tools`) starts empty and whose GATEWAY_CONFIG file (`configFile`) holds `yaml`. */
export async function buildReloadApp (t: TestContext, yaml = '', env: Record<string, string> = {}): Promise<ReloadApp> {
  // The config file must exist before buildTestApp loads it: a folder of its own.
  const seed = await mkdtemp(join(tmpdir(), 'gw-reload-'))
  const configFile = join(seed, 'gateway.yaml')
  await writeFile(configFile, yaml)
  const app = await buildTestApp(t, { GATEWAY_CONFIG: configFile, ...env })
  t.after(() => rm(seed, { recursive: true, force: true }))
  return { ...app, tools: join(app.dir, 'no-tools'), configFile }
}

/** A self-registering tool module answering `answer`; `slow` makes it wait for globalThis.__release<name>(). */
export function toolModule (name: string, answer: string, options: { toolset?: string, slow?: boolean, description?: string } = {}): string {
  const wait = options.slow === true
    ? `globalThis.__started?.(${JSON.stringify(name)}); await new Promise((resolve) => { globalThis[${JSON.stringify(`__release_${name}`)}] = resolve })`
    : ''
  return `import { registry } from 'tool-gateway/registry'
registry.register({
  name: ${JSON.stringify(name)},
  toolset: ${JSON.stringify(options.toolset ?? 'reloadable')},
  schema: { description: ${JSON.stringify(options.description ?? `The ${name} tool`)}, parameters: { type: 'object', properties: {} } },
  handler: async () => { ${wait}; return ${JSON.stringify(answer)} },
  dispose: () => { (globalThis.__disposed ??= []).push(${JSON.stringify(`${name}:${answer}`)}) }
})
`
}
