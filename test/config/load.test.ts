// loadConfig: defaults, environment conversion, YAML/JSON files, interpolation, and the error
// messages that stop start-up (field, source, expectation), all against real files in temp folders.
/* eslint-disable no-template-curly-in-string -- `${VAR}` in plain strings is the syntax under test */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Ajv } from 'ajv'
import { CONFIG_AJV_OPTIONS } from '../../src/config/check.ts'
import { BUILTIN_TOOLS_DIR, loadConfig } from '../../src/config/load.ts'
import { ConfigSchema } from '../../src/config/schema.ts'
import { resolvePluginModule } from '../../src/plugins/resolve.ts'

interface TestContext { after: (fn: () => Promise<void>) => void }

async function tempDir (t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-config-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** Writes `text` as `name` in `dir` and returns the absolute path. */
async function file (dir: string, name: string, text: string): Promise<string> {
  const path = join(dir, name)
  await writeFile(path, text)
  return path
}

/** The message of the configuration error loadConfig rejects with. */
async function configError (promise: Promise<unknown>): Promise<string> {
  let caught: unknown
  await assert.rejects(promise, (err: unknown) => {
    caught = err
    return true
  })
  assert.equal((caught as { code?: string }).code, 'GW_ERR_INVALID_CONFIG')
  return (caught as Error).message
}

function sha256 (text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

test('with an empty environment every default is filled', async (t) => {
  const cwd = await tempDir(t)
  const config = await loadConfig({ env: {}, cwd })
  assert.equal(config.port, 8080)
  assert.equal(config.host, '127.0.0.1')
  assert.equal(config.logLevel, 'info')
  assert.equal(config.toolsDir, BUILTIN_TOOLS_DIR)
  assert.equal(config.workspaceRoot, join(cwd, 'workspace'))
  assert.deepEqual(config.http, {
    bodyLimitBytes: 1_048_576,
    batchConcurrency: 8,
    maxBatchSize: 128,
    requestTimeoutMs: 30_000,
    bodyIdleTimeoutMs: 5_000,
    maxConnections: 512,
    authFailures: { max: 10, windowMs: 60_000 },
    allowedHosts: [],
    trustProxy: [],
    metricsPublic: false,
    shutdownGraceMs: 30_000,
    rateLimit: { timeWindowMs: 60_000 },
    inFlight: { perConnection: 16, perKey: 64, total: 256 },
    pressure: { maxEventLoopDelayMs: 1000, maxHeapUsedBytes: 0, maxRssBytes: 0 }
  })
  assert.deepEqual(config.dispatch, { defaultTimeoutMs: 60_000, maxTimeoutMs: 600_000, maxResultChars: 1_000_000, maxMediaBytes: 10_485_760 })
  assert.deepEqual(config.availability, { ttlMs: 30_000, graceMs: 60_000, probeTimeoutMs: 2_000 })
  assert.deepEqual(config.auth, { keys: [], allowOpen: false })
  assert.deepEqual(config.toolsets, {})
  assert.deepEqual(config.tools, {})
  assert.deepEqual(config.logging, { secretArguments: [], secretEnv: [] })
  assert.deepEqual(config.web.allowHosts, [])
  assert.equal(config.terminal.enabled, false)
  assert.deepEqual(config.mcp, { allowedOrigins: [], maxSessions: 1000, maxSessionsPerKey: 100, sessionIdleMs: 600_000, sessionMaxMs: 86_400_000, maxStreamsPerKey: 16, streamMaxMs: 1_800_000, pageSize: 500, taskAfterMs: 2_000, upstreamMaxMessageBytes: 10_485_760 })
  assert.deepEqual(config.redis, { keyPrefix: 'tool-gateway:', commandTimeoutMs: 500, connectTimeoutMs: 2_000 })
  assert.deepEqual(config.idempotency, { ttlMs: 86_400_000, maxTotalBytes: 33_554_432 })
})

test('the environment is read from options.env, not from the process', async (t) => {
  const cwd = await tempDir(t)
  const saved = process.env.PORT
  process.env.PORT = '1234'
  t.after(async () => {
    if (saved === undefined) delete process.env.PORT
    else process.env.PORT = saved
  })
  assert.equal((await loadConfig({ env: {}, cwd })).port, 8080)
})

test('environment variables are converted to integers, booleans and lists', async (t) => {
  const cwd = await tempDir(t)
  const config = await loadConfig({
    cwd,
    env: {
      PORT: ' 9001 ',
      HOST: '::1',
      LOG_LEVEL: 'debug',
      BODY_LIMIT_BYTES: '2048',
      BATCH_CONCURRENCY: '3',
      SHUTDOWN_GRACE_MS: '1500',
      TOOL_TIMEOUT_MS: '5000',
      MAX_TOOL_TIMEOUT_MS: '9000',
      MAX_RESULT_CHARS: '0',
      MAX_MEDIA_BYTES: '2048',
      GATEWAY_ALLOW_OPEN: 'true',
      GATEWAY_ENABLE_TERMINAL: 'yes',
      WEB_ALLOW_HOSTS: ' intranet.example , 10.0.0.0/8,,localhost ',
      WEB_SEARCH_BACKEND: 'searxng',
      SEARXNG_URL: 'http://127.0.0.1:8888'
    }
  })
  assert.equal(config.port, 9001)
  assert.equal(config.host, '::1')
  assert.equal(config.logLevel, 'debug')
  assert.equal(config.http.bodyLimitBytes, 2048)
  assert.equal(config.http.batchConcurrency, 3)
  assert.equal(config.http.shutdownGraceMs, 1500)
  assert.deepEqual(config.dispatch, { defaultTimeoutMs: 5000, maxTimeoutMs: 9000, maxResultChars: 0, maxMediaBytes: 2048 })
  assert.equal(config.auth.allowOpen, true)
  assert.equal(config.terminal.enabled, true)
  assert.deepEqual(config.web.allowHosts, ['intranet.example', '10.0.0.0/8', 'localhost'])
  assert.deepEqual(config.web.search, { backend: 'searxng', searxngUrl: 'http://127.0.0.1:8888' })
})

test('booleans accept true/1/yes and false/0/no in any case', async (t) => {
  const cwd = await tempDir(t)
  for (const text of ['true', 'TRUE', '1', 'yes', 'Yes']) {
    const config = await loadConfig({ cwd, env: { GATEWAY_ALLOW_OPEN: text } })
    assert.equal(config.auth.allowOpen, true, text)
  }
  for (const text of ['false', 'False', '0', 'no', 'NO']) {
    // The file says true so that a false from the environment is visible.
    const path = await file(cwd, 'open.yaml', 'auth:\n  allowOpen: true\n')
    const config = await loadConfig({ cwd, env: { GATEWAY_CONFIG: path, GATEWAY_ALLOW_OPEN: text } })
    assert.equal(config.auth.allowOpen, false, text)
  }
})

test('an empty environment variable counts as unset', async (t) => {
  const cwd = await tempDir(t)
  const config = await loadConfig({ cwd, env: { PORT: '', HOST: '', WEB_ALLOW_HOSTS: '' } })
  assert.equal(config.port, 8080)
  assert.equal(config.host, '127.0.0.1')
  assert.deepEqual(config.web.allowHosts, [])
})

const YAML_CONFIG = `# a commented YAML config
port: 9000
toolsets:
  research:
    description: Reading only
    tools: [web_search, read_file]
    includes: [web]
auth:
  keys:
    - name: ci
      sha256: ${sha256('ci-key')}
      toolsets: [research]
    - name: ops
      env: OPS_KEY
tools:
  read_file:
    timeoutMs: 2500
    maxResultSizeChars: 4000
logging:
  secretArguments: [password, api-key]
`

test('a YAML file named by GATEWAY_CONFIG sets toolsets, keys, per-tool overrides and secret arguments', async (t) => {
  const cwd = await tempDir(t)
  await file(cwd, 'gateway.yaml', YAML_CONFIG)
  // Relative to cwd, like every other path.
  const config = await loadConfig({ cwd, env: { GATEWAY_CONFIG: 'gateway.yaml', OPS_KEY: 'ops-secret' } })
  assert.equal(config.port, 9000)
  assert.deepEqual(config.toolsets, { research: { description: 'Reading only', tools: ['web_search', 'read_file'], includes: ['web'] } })
  assert.deepEqual(config.auth.keys, [
    { name: 'ci', sha256: sha256('ci-key'), toolsets: ['research'] },
    { name: 'ops', env: 'OPS_KEY' }
  ])
  assert.deepEqual(config.tools, { read_file: { timeoutMs: 2500, maxResultSizeChars: 4000 } })
  assert.deepEqual(config.logging.secretArguments, ['password', 'api-key'])
  // Sections the file leaves out still get their defaults.
  assert.equal(config.http.bodyLimitBytes, 1_048_576)
})

test('a JSON file is read the same way', async (t) => {
  const cwd = await tempDir(t)
  const path = await file(cwd, 'gateway.json', JSON.stringify({
    host: 'localhost',
    toolsets: { readers: { tools: ['read_file'] } },
    auth: { keys: [{ name: 'bot', sha256: sha256('bot-key').toUpperCase(), toolsets: ['readers'] }] },
    tools: { slow_tool: { timeoutMs: 120_000 } },
    logging: { secretArguments: ['token'] }
  }, null, 2))
  const config = await loadConfig({ cwd, env: { GATEWAY_CONFIG: path } })
  assert.equal(config.host, 'localhost')
  assert.deepEqual(config.toolsets, { readers: { tools: ['read_file'] } })
  assert.deepEqual(config.auth.keys, [{ name: 'bot', sha256: sha256('bot-key').toUpperCase(), toolsets: ['readers'] }])
  assert.deepEqual(config.tools, { slow_tool: { timeoutMs: 120_000 } })
  assert.deepEqual(config.logging.secretArguments, ['token'])
})

test('an empty file means no settings', async (t) => {
  const cwd = await tempDir(t)
  const path = await file(cwd, 'empty.yaml', '# nothing yet\n')
  const config = await loadConfig({ cwd, env: { GATEWAY_CONFIG: path } })
  assert.equal(config.port, 8080)
})

test('the environment overrides the file field by field, keeping the file\'s other fields', async (t) => {
  const cwd = await tempDir(t)
  const path = await file(cwd, 'gateway.yaml', [
    'port: 9000',
    'host: 127.0.0.2',
    'http:',
    '  bodyLimitBytes: 4096',
    '  batchConcurrency: 2',
    'web:',
    '  allowHosts: [from-file.example]',
    ''
  ].join('\n'))
  const config = await loadConfig({ cwd, env: { GATEWAY_CONFIG: path, PORT: '9100', BODY_LIMIT_BYTES: '8192', WEB_ALLOW_HOSTS: 'from-env.example' } })
  assert.equal(config.port, 9100)
  assert.equal(config.host, '127.0.0.2')
  assert.equal(config.http.bodyLimitBytes, 8192)
  assert.equal(config.http.batchConcurrency, 2)
  // A list from the environment replaces the file's list rather than merging with it.
  assert.deepEqual(config.web.allowHosts, ['from-env.example'])
})

test('${VAR} and ${VAR:-default} in file strings read the environment', async (t) => {
  const cwd = await tempDir(t)
  const path = await file(cwd, 'gateway.yaml', [
    'toolsets:',
    '  team:',
    '    description: "Tools of the ${TEAM} team (${MISSING_SUFFIX:-no suffix})"',
    '    tools: ["${TOOL_A}", "${TOOL_B:-read_file}"]',
    'web:',
    '  search:',
    '    searxngUrl: "${SEARX:-http://127.0.0.1:8888}"',
    '    braveApiKey: ${BRAVE_KEY}',
    ''
  ].join('\n'))
  const config = await loadConfig({
    cwd,
    env: { GATEWAY_CONFIG: path, TEAM: 'platform', TOOL_A: 'web_search', BRAVE_KEY: 'brave-123', SEARX: '' }
  })
  assert.deepEqual(config.toolsets.team, { description: 'Tools of the platform team (no suffix)', tools: ['web_search', 'read_file'] })
  // An empty variable takes the default, as in the shell.
  assert.equal(config.web.search.searxngUrl, 'http://127.0.0.1:8888')
  assert.equal(config.web.search.braveApiKey, 'brave-123')

  const withSearx = await loadConfig({ cwd, env: { GATEWAY_CONFIG: path, TEAM: 'x', TOOL_A: 'a', BRAVE_KEY: 'b', SEARX: 'https://searx.example' } })
  assert.equal(withSearx.web.search.searxngUrl, 'https://searx.example')
})

test('an unset ${VAR} without default is an error naming the variable and the field', async (t) => {
  const cwd = await tempDir(t)
  const path = await file(cwd, 'gateway.yaml', 'web:\n  search:\n    braveApiKey: ${BRAVE_KEY}\n  allowHosts: [ok.example, "${EXTRA_HOST}"]\n')
  const message = await configError(loadConfig({ cwd, env: { GATEWAY_CONFIG: path } }))
  assert.match(message, /web\.search\.braveApiKey: environment variable BRAVE_KEY is not set/)
  assert.match(message, /web\.allowHosts\.1: environment variable EXTRA_HOST is not set/)
})

test('unknown fields are refused, naming each one and where it is', async (t) => {
  const cwd = await tempDir(t)
  const path = await file(cwd, 'gateway.yaml', [
    'prot: 9000',
    'http:',
    '  bodylimit: 10',
    'auth:',
    '  keys:',
    `    - { name: a, sha256: ${sha256('a')}, role: admin }`,
    'toolsets:',
    '  mine: { tools: [read_file], colour: blue }',
    'tools:',
    '  read_file: { retries: 3 }',
    ''
  ].join('\n'))
  const message = await configError(loadConfig({ cwd, env: { GATEWAY_CONFIG: path } }))
  assert.match(message, /\(top level\): unknown field\(s\) prot/)
  assert.match(message, /^\s*http: unknown field\(s\) bodylimit$/m)
  assert.match(message, /auth\.keys\.0: unknown field\(s\) role/)
  assert.match(message, /toolsets\.mine: unknown field\(s\) colour/)
  assert.match(message, /tools\.read_file: unknown field\(s\) retries/)
})

test('an unknown-field error does not echo the values beside it (they may be secrets)', async (t) => {
  const cwd = await tempDir(t)
  const path = await file(cwd, 'gateway.yaml', 'web:\n  search:\n    braveApiKey: brave-very-secret\n    braveKey: typo\n')
  const message = await configError(loadConfig({ cwd, env: { GATEWAY_CONFIG: path } }))
  assert.match(message, /web\.search: unknown field\(s\) braveKey/)
  assert.doesNotMatch(message, /brave-very-secret/)
})

test('an MCP server name outside the pattern is refused, named (it becomes part of tool names)', async (t) => {
  const cwd = await tempDir(t)
  const path = await file(cwd, 'gateway.yaml', 'mcpServers:\n  "bad name!": { url: "http://127.0.0.1:1/mcp" }\n  fine_one: { url: "http://127.0.0.1:1/mcp" }\n')
  const message = await configError(loadConfig({ cwd, env: { GATEWAY_CONFIG: path } }))
  assert.match(message, /mcpServers: invalid server name\(s\) "bad name!": letters, digits, _ - \. and \/ only, at most 64$/m)
  assert.doesNotMatch(message, /fine_one/)
})

test('MCP server names in the registry\'s reverse-DNS style are accepted as they are', async (t) => {
  const cwd = await tempDir(t)
  const path = await file(cwd, 'gateway.yaml', 'mcpServers:\n  ai.exa/exa: { url: "http://127.0.0.1:1/mcp" }\n  io.github.user/server: { command: node }\n')
  const config = await loadConfig({ cwd, env: { GATEWAY_CONFIG: path } })
  assert.deepEqual(Object.keys(config.mcpServers).sort(), ['ai.exa/exa', 'io.github.user/server'])
})

test('an object missing a required field is named, not echoed (its other fields may be secrets)', async (t) => {
  const cwd = await tempDir(t)
  const path = await file(cwd, 'gateway.yaml', [
    'mcpServers:',
    '  remote: { headers: { Authorization: Bearer mcp-very-secret } }',
    'auth:',
    `  keys: [{ sha256: ${sha256('k')} }]`,
    ''
  ].join('\n'))
  const message = await configError(loadConfig({ cwd, env: { GATEWAY_CONFIG: path } }))
  assert.match(message, /mcpServers\.remote: must have required properties url$/m)
  assert.match(message, /mcpServers\.remote: must have required properties command$/m)
  assert.match(message, /auth\.keys\.0: must have required properties name$/m)
  assert.doesNotMatch(message, /mcp-very-secret/)
  assert.ok(!message.includes(sha256('k')), message)
})

test('a malformed sha256 digest is named with its key, never echoed (it is often the key itself, pasted)', async (t) => {
  const cwd = await tempDir(t)
  const path = await file(cwd, 'gateway.yaml', [
    'auth:',
    '  keys:',
    `    - { name: fine, sha256: ${sha256('fine')} }`,
    '    - { name: robot, sha256: sk-live-the-real-key-0123456789 }',
    `    - { name: short, sha256: ${sha256('x').slice(0, 63)} }`,
    ''
  ].join('\n'))
  const message = await configError(loadConfig({ cwd, env: { GATEWAY_CONFIG: path } }))
  assert.match(message, /auth\.keys\.1\.sha256 \(key "robot"\): must be 64 hexadecimal characters \(the SHA-256 digest of the key, not the key\); the value is not shown/)
  assert.match(message, /auth\.keys\.2\.sha256 \(key "short"\): must be 64 hexadecimal characters/)
  assert.doesNotMatch(message, /sk-live-the-real-key/)
  assert.ok(!message.includes(sha256('x').slice(0, 63)), message)
})

test('every bad value is reported at once, with its field, its source and what was expected', async (t) => {
  const cwd = await tempDir(t)
  const path = await file(cwd, 'gateway.yaml', 'tools:\n  read_file:\n    timeoutMs: 0\nhttp:\n  maxBatchSize: many\n')
  const message = await configError(loadConfig({
    cwd,
    env: {
      GATEWAY_CONFIG: path,
      PORT: 'abc',
      LOG_LEVEL: 'loud',
      BODY_LIMIT_BYTES: '12',
      GATEWAY_ALLOW_OPEN: 'maybe',
      WEB_SEARCH_BACKEND: 'bing',
      TOOL_TIMEOUT_MS: '1.5',
      // More than TypeBox's default of 8 errors: none may be dropped.
      BATCH_CONCURRENCY: '0',
      MAX_RESULT_CHARS: '-1'
    }
  }))
  const lines = message.split('\n').slice(1).map((line) => line.trim())
  const expected = [
    /^port \(from PORT="abc"\): must be integer, got "abc"$/,
    /^logLevel \(from LOG_LEVEL="loud"\): .*\(fatal, error, warn, info, debug, trace, silent\), got "loud"$/,
    /^http\.bodyLimitBytes \(from BODY_LIMIT_BYTES="12"\): must be >= 1024, got 12$/,
    /^http\.maxBatchSize: must be integer, got "many"$/,
    /^auth\.allowOpen \(from GATEWAY_ALLOW_OPEN="maybe"\): must be boolean, got "maybe"$/,
    /^web\.search\.backend \(from WEB_SEARCH_BACKEND="bing"\): .*\(searxng, brave\), got "bing"$/,
    /^dispatch\.defaultTimeoutMs \(from TOOL_TIMEOUT_MS="1.5"\): must be integer, got "1.5"$/,
    /^tools\.read_file\.timeoutMs: must be >= 1, got 0$/,
    /^http\.batchConcurrency \(from BATCH_CONCURRENCY="0"\): must be >= 1, got 0$/,
    /^dispatch\.maxResultChars \(from MAX_RESULT_CHARS="-1"\): must be >= 0, got -1$/
  ]
  for (const pattern of expected) {
    assert.ok(lines.some((line) => pattern.test(line)), `no line matches ${pattern}:\n${message}`)
  }
  assert.equal(lines.length, expected.length, message)
})

test('an out-of-range port names the field and the limit', async (t) => {
  const cwd = await tempDir(t)
  const message = await configError(loadConfig({ cwd, env: { PORT: '70000' } }))
  assert.match(message, /port \(from PORT="70000"\): must be <= 65535, got 70000/)
})

test('a missing file is an error naming its path', async (t) => {
  const cwd = await tempDir(t)
  const message = await configError(loadConfig({ cwd, env: { GATEWAY_CONFIG: 'nowhere/gateway.yaml' } }))
  assert.match(message, /GATEWAY_CONFIG: cannot read /)
  assert.ok(message.includes(join(cwd, 'nowhere/gateway.yaml')), message)
})

test('a file that is not YAML or JSON is an error naming its path', async (t) => {
  const cwd = await tempDir(t)
  const path = await file(cwd, 'broken.yaml', 'port: [8080,\n  host: }\n')
  const message = await configError(loadConfig({ cwd, env: { GATEWAY_CONFIG: path } }))
  assert.ok(message.includes(path), message)
  assert.match(message, /not valid YAML or JSON/)
})

test('a file whose top level is not an object is an error naming its path', async (t) => {
  const cwd = await tempDir(t)
  const path = await file(cwd, 'list.json', '[1, 2]')
  const message = await configError(loadConfig({ cwd, env: { GATEWAY_CONFIG: path } }))
  assert.ok(message.includes(path), message)
  assert.match(message, /must hold an object/)
})

test('an API key gives exactly one of sha256 or env', async (t) => {
  const cwd = await tempDir(t)
  const both = await file(cwd, 'both.yaml', `auth:\n  keys:\n    - { name: both, sha256: ${sha256('k')}, env: KEY_VAR }\n`)
  assert.match(await configError(loadConfig({ cwd, env: { GATEWAY_CONFIG: both, KEY_VAR: 'k' } })),
    /auth\.keys\.0: give exactly one of sha256 or env/)
  const neither = await file(cwd, 'neither.yaml', 'auth:\n  keys:\n    - { name: neither, toolsets: [web] }\n')
  assert.match(await configError(loadConfig({ cwd, env: { GATEWAY_CONFIG: neither } })),
    /auth\.keys\.0: give exactly one of sha256 or env/)
})

test('an API key read from env needs that variable set and not empty', async (t) => {
  const cwd = await tempDir(t)
  const path = await file(cwd, 'keys.yaml', `auth:\n  keys:\n    - { name: ok, sha256: ${sha256('k')} }\n    - { name: bot, env: BOT_KEY }\n`)
  for (const env of [{}, { BOT_KEY: '' }]) {
    const message = await configError(loadConfig({ cwd, env: { GATEWAY_CONFIG: path, ...env } }))
    assert.match(message, /auth\.keys\.1\.env: environment variable BOT_KEY is not set or empty/)
  }
  const config = await loadConfig({ cwd, env: { GATEWAY_CONFIG: path, BOT_KEY: 'bot-secret' } })
  assert.equal(config.auth.keys.length, 2)
  // The config keeps the variable's name, never the key read from it.
  assert.doesNotMatch(JSON.stringify(config), /bot-secret/)
})

test('an API key digest must be 64 hex characters', async (t) => {
  const cwd = await tempDir(t)
  const path = await file(cwd, 'keys.yaml', 'auth:\n  keys:\n    - { name: short, sha256: abc123 }\n')
  const message = await configError(loadConfig({ cwd, env: { GATEWAY_CONFIG: path } }))
  assert.match(message, /auth\.keys\.0\.sha256 \(key "short"\): must be 64 hexadecimal characters/)
  assert.doesNotMatch(message, /abc123/)
})

test('two API keys with the same name are refused', async (t) => {
  const cwd = await tempDir(t)
  const path = await file(cwd, 'keys.yaml', `auth:\n  keys:\n    - { name: ci, sha256: ${sha256('a')} }\n    - { name: ci, sha256: ${sha256('b')} }\n`)
  const message = await configError(loadConfig({ cwd, env: { GATEWAY_CONFIG: path } }))
  assert.match(message, /auth\.keys\.1\.name: "ci" is used by another key/)
})

test('relative WORKSPACE_ROOT and TOOLS_DIR resolve against cwd; absolute ones are kept', async (t) => {
  const cwd = await tempDir(t)
  const relative = await loadConfig({ cwd, env: { WORKSPACE_ROOT: 'data/ws', TOOLS_DIR: './my-tools' } })
  assert.equal(relative.workspaceRoot, join(cwd, 'data/ws'))
  assert.equal(relative.toolsDir, join(cwd, 'my-tools'))
  const elsewhere = join(tmpdir(), 'gw-somewhere-else')
  const absolute = await loadConfig({ cwd, env: { WORKSPACE_ROOT: elsewhere } })
  assert.equal(absolute.workspaceRoot, elsewhere)
})

test('an interpolated number or boolean in the file is read as one', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-convert-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, 'gw.yaml'), 'dispatch:\n  defaultTimeoutMs: ${T}\nterminal:\n  enabled: ${ON}\n')
  const config = await loadConfig({ env: { GATEWAY_CONFIG: 'gw.yaml', T: '5000', ON: 'true' }, cwd: dir })
  assert.equal(config.dispatch.defaultTimeoutMs, 5000)
  assert.equal(config.terminal.enabled, true)
  await writeFile(join(dir, 'gw.yaml'), 'dispatch:\n  defaultTimeoutMs: ${T}\n')
  await assert.rejects(loadConfig({ env: { GATEWAY_CONFIG: 'gw.yaml', T: 'soon' }, cwd: dir }), /dispatch\.defaultTimeoutMs: must be integer, got "soon"/)
})

test('the commented sample config loads as copied anywhere: nothing to set, no working key, its plugin found', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-sample-config-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await cp(join(import.meta.dirname, '../../gateway.example.yaml'), join(dir, 'gateway.yaml'))
  const config = await loadConfig({ env: { GATEWAY_CONFIG: 'gateway.yaml' }, cwd: dir })
  assert.deepEqual(config.auth.keys, [], 'the sample carries no key anyone could use')
  assert.deepEqual(config.toolsets.research.includes, ['web'])
  assert.equal(config.tools.web_extract.timeoutMs, 30000)
  const plugins = config.plugins.map((entry) => resolvePluginModule(typeof entry === 'string' ? entry : entry.module, config.pluginsDir ?? dir))
  assert.deepEqual(plugins.map((plugin) => plugin.name), ['policy'])
  assert.ok(existsSync(plugins[0].file), `${plugins[0].file} exists`)
})

test('relative plugin paths resolve from the config file\'s folder unless pluginsDir says otherwise', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-plugins-dir-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, 'gw.yaml'), 'plugins: [./p.ts]\n')
  assert.equal((await loadConfig({ env: { GATEWAY_CONFIG: join(dir, 'gw.yaml') }, cwd: tmpdir() })).pluginsDir, dir)
  await writeFile(join(dir, 'gw.yaml'), 'pluginsDir: extra\n')
  assert.equal((await loadConfig({ env: { GATEWAY_CONFIG: join(dir, 'gw.yaml') }, cwd: tmpdir() })).pluginsDir, join(dir, 'extra'))
  assert.equal((await loadConfig({ env: {}, cwd: dir })).pluginsDir, dir)
})

test('the config schema is valid JSON Schema and Ajv-strict (start-up compiles it without the meta-schema check)', () => {
  const ajv = new Ajv({ ...CONFIG_AJV_OPTIONS, validateSchema: true, strict: true })
  assert.equal(ajv.validateSchema(ConfigSchema), true, JSON.stringify(ajv.errors))
  assert.doesNotThrow(() => ajv.compile(ConfigSchema))
})

test('TRUST_PROXY takes addresses, CIDR ranges and range names; anything else is refused naming the entry', async () => {
  const config = await loadConfig({ env: { TRUST_PROXY: '10.0.0.0/8, 192.168.1.5,fd00::/8,loopback' } })
  assert.deepEqual(config.http.trustProxy, ['10.0.0.0/8', '192.168.1.5', 'fd00::/8', 'loopback'])
  const message = await configError(loadConfig({ env: { TRUST_PROXY: '10.0.0.0/8,ingress.local,10.0.0.0/99' } }))
  assert.match(message, /http\.trustProxy\.1: "ingress\.local" is not an IP address, a CIDR range/)
  assert.match(message, /http\.trustProxy\.2: "10\.0\.0\.0\/99"/)
})
