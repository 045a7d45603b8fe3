// Builds bench/search/catalogue.json: the real `tools/list` of published MCP servers, installed
// with npm in a folder outside the repo (never in node_modules) and run over stdio with the MCP
// client. Usage: node bench/search/collect.ts <folder with node_modules> ; see bench/search/README.md.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'

interface ServerSpec {
  /** The npm package. */
  package: string
  /** The server's name in a gateway config: its tools are `mcp__<alias>__<tool>`. */
  alias: string
  /** The script inside it to run (relative to the package folder). */
  bin: string
  args?: string[]
  env?: Record<string, string>
}

// Dummy credentials: these servers list their tools without calling their service.
const SERVERS: ServerSpec[] = [
  { package: '@modelcontextprotocol/server-everything', alias: 'everything', bin: 'dist/index.js', args: ['stdio'] },
  { package: '@modelcontextprotocol/server-filesystem', alias: 'filesystem', bin: 'dist/index.js', args: ['/tmp'] },
  { package: '@modelcontextprotocol/server-memory', alias: 'memory', bin: 'dist/index.js' },
  { package: '@modelcontextprotocol/server-sequential-thinking', alias: 'thinking', bin: 'dist/index.js' },
  { package: '@playwright/mcp', alias: 'playwright', bin: 'cli.js' },
  { package: '@notionhq/notion-mcp-server', alias: 'notion', bin: 'bin/cli.mjs' },
  { package: 'firecrawl-mcp', alias: 'firecrawl', bin: 'dist/index.js', env: { FIRECRAWL_API_KEY: 'fc-dummy' } },
  { package: 'mcp-server-kubernetes', alias: 'kubernetes', bin: 'dist/index.js' },
  { package: 'chrome-devtools-mcp', alias: 'devtools', bin: 'build/src/bin/chrome-devtools-mcp.js' },
  { package: '@wonderwhy-er/desktop-commander', alias: 'commander', bin: 'dist/index.js' },
  { package: '@modelcontextprotocol/server-github', alias: 'github', bin: 'dist/index.js', env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'dummy' } },
  { package: '@modelcontextprotocol/server-slack', alias: 'slack', bin: 'dist/index.js', env: { SLACK_BOT_TOKEN: 'xoxb-dummy', SLACK_TEAM_ID: 'T0' } },
  { package: '@modelcontextprotocol/server-gitlab', alias: 'gitlab', bin: 'dist/index.js', env: { GITLAB_PERSONAL_ACCESS_TOKEN: 'dummy' } },
  { package: '@modelcontextprotocol/server-google-maps', alias: 'maps', bin: 'dist/index.js', env: { GOOGLE_MAPS_API_KEY: 'dummy' } },
  { package: '@modelcontextprotocol/server-brave-search', alias: 'brave', bin: 'dist/index.js', env: { BRAVE_API_KEY: 'dummy' } },
]

const root = process.argv[2]
if (root === undefined) throw new Error('usage: node bench/search/collect.ts <folder where the servers are npm-installed>')
const only = process.argv.slice(3)

const out: unknown[] = []
for (const spec of SERVERS) {
  if (only.length > 0 && !only.includes(spec.package)) continue
  // server-everything is a dev dependency of the gateway already: read from its node_modules.
  const base = existsSync(join(root, 'node_modules', spec.package)) ? root : '.'
  const dir = join(base, 'node_modules', spec.package)
  const version = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(dir, spec.bin), ...spec.args ?? []],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...spec.env },
    stderr: 'ignore'
  })
  const client = new Client({ name: 'tool-gateway-search-bench', version: '1.0.0' })
  try {
    await client.connect(transport)
    const tools = []
    let cursor: string | undefined
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor })
      tools.push(...page.tools.map((t) => ({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema })))
      cursor = page.nextCursor
    } while (cursor !== undefined)
    out.push({ server: spec.package, version, alias: spec.alias, tools })
    console.error(`${spec.package}@${version}: ${tools.length} tools`)
  } catch (err) {
    console.error(`${spec.package}@${version}: FAILED ${(err as Error).message}`)
  } finally {
    await client.close().catch(() => {})
  }
}
writeFileSync(process.env.CATALOGUE_OUT ?? 'bench/search/catalogue.json', JSON.stringify(out, null, 1) + '\n')
