// Loads the configuration once at boot: the optional file named by GATEWAY_CONFIG (YAML or JSON,
// `${VAR}` read from the environment), overlaid by environment variables, defaults filled, then
// validated. Any bad value stops start-up with a message naming the field, its source and what
// was expected.
import { readFile } from 'node:fs/promises'
import { dirname, isAbsolute, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { coerceArguments } from '../json-schema/coerce.ts'
import { InvalidConfigError } from '../shared/errors.ts'
import type { JsonSchema } from '../json-schema/document.ts'
import { describeErrors, fillAndCheck } from './check.ts'
import { ENV_VARIABLES, fromEnvironment } from './env.ts'
import { interpolate } from './interpolate.ts'
import { ConfigSchema, type GatewayConfig } from './schema.ts'
import { isRecord } from '../shared/objects.ts'

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv
  /** Relative paths (file, workspace, tool folders) resolve against this; default process.cwd(). */
  cwd?: string
}

/** The `tools/` folder shipped beside the sources (or beside the compiled files in dist/). */
export const BUILTIN_TOOLS_DIR = fileURLToPath(new URL('../../tools/', import.meta.url))

/** Objects merge key by key; anything else from `over` replaces. */
function merge (base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(over)) {
    out[key] = isRecord(value) && isRecord(out[key]) ? merge(out[key] as Record<string, unknown>, value) : value
  }
  return out
}

async function readConfigFile (path: string): Promise<Record<string, unknown>> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    throw new InvalidConfigError(`GATEWAY_CONFIG: cannot read ${path}: ${(err as Error).message}`)
  }
  // Loaded only when there is a file to read: most gateways run on the environment alone.
  const { parse: parseYaml } = await import('yaml')
  let data: unknown
  try {
    // YAML 1.2 is a superset of JSON, so one parser reads both.
    data = parseYaml(text)
  } catch (err) {
    throw new InvalidConfigError(`GATEWAY_CONFIG: ${path} is not valid YAML or JSON: ${(err as Error).message}`)
  }
  if (data === null || data === undefined) return {}
  if (!isRecord(data)) throw new InvalidConfigError(`GATEWAY_CONFIG: ${path} must hold an object at its top level`)
  return withoutNulls(data)
}

/** A YAML key left empty (`search:` with every child commented out) reads as null: treat it as unset. */
function withoutNulls (data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(data)) {
    if (value === null) continue
    out[key] = isRecord(value) ? withoutNulls(value) : value
  }
  return out
}

function checkApiKeys (config: GatewayConfig, env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = []
  const names = new Set<string>()
  config.auth.keys.forEach((key, i) => {
    const field = `auth.keys.${i}`
    if ((key.sha256 === undefined) === (key.env === undefined)) problems.push(`${field}: give exactly one of sha256 or env`)
    if (key.env !== undefined && !env[key.env]) problems.push(`${field}.env: environment variable ${key.env} is not set or empty`)
    if (names.has(key.name)) problems.push(`${field}.name: "${key.name}" is used by another key`)
    names.add(key.name)
  })
  return problems
}

/** What the schema cannot say of sign-in: it must grant something, and introspection needs the gateway's client. */
function checkOAuth (config: GatewayConfig): string[] {
  const oauth = config.auth.oauth
  const problems: string[] = []
  for (const [name, server] of Object.entries(config.mcpServers)) {
    if (!('url' in server) || server.auth?.tokenExchange === undefined) continue
    if (oauth?.client === undefined) problems.push(`mcpServers.${name}.auth.tokenExchange: needs auth.oauth with its client (OAUTH_ISSUER, OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET): the exchange happens at the identity provider, as the gateway's client`)
  }
  if (oauth === undefined) return problems
  if (Object.keys(oauth.scopes).length === 0 && Object.keys(oauth.claims).length === 0) {
    problems.push('auth.oauth: map at least one scope (auth.oauth.scopes) or claim value (auth.oauth.claims) to toolsets: a token grants only what is mapped, so none would get in')
  }
  if (oauth.introspection && oauth.client === undefined) problems.push('auth.oauth.introspection: needs auth.oauth.client (OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET), the gateway\'s client at the provider')
  return problems
}

const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])

/** Entries of http.trustProxy that are no address, CIDR range or range name (ipaddr.js only when there are any). */
async function checkTrustProxy (config: GatewayConfig): Promise<string[]> {
  const entries = config.http.trustProxy
  if (entries.length === 0) return []
  const { default: ipaddr } = await import('ipaddr.js')
  return entries.flatMap((entry, i) => PROXY_RANGE_NAMES.has(entry) || ipaddr.isValid(entry) || ipaddr.isValidCIDR(entry)
    ? []
    : [`http.trustProxy.${i}: "${entry}" is not an IP address, a CIDR range (10.0.0.0/8) or one of ${[...PROXY_RANGE_NAMES].join(', ')}`])
}

/** Reads, merges, fills and validates the configuration; throws InvalidConfigError listing every problem. */
export async function loadConfig (options: LoadConfigOptions = {}): Promise<GatewayConfig> {
  const env = options.env ?? process.env
  const cwd = options.cwd ?? process.cwd()
  const path = env.GATEWAY_CONFIG
  let fromFile: Record<string, unknown> = {}
  if (path) {
    const absolute = resolve(cwd, path)
    const interpolated = interpolate(await readConfigFile(absolute), env)
    if (interpolated.problems.length > 0) {
      throw new InvalidConfigError(`invalid configuration:\n  ${interpolated.problems.join('\n  ')}`)
    }
    fromFile = interpolated.value as Record<string, unknown>
  }
  const overlay = fromEnvironment(env)
  const merged = merge(merge({ toolsDir: BUILTIN_TOOLS_DIR }, fromFile), overlay.values)
  // `${VAR}` interpolates to text: "5000" becomes 5000 where the schema wants an integer, "true"
  // true where it wants a boolean, by the same strict rules as tool arguments ("1.5" stays text).
  const filled = coerceArguments(merged, ConfigSchema as unknown as JsonSchema)
  const problems = describeErrors(fillAndCheck(filled), filled, overlay.sources)
  if (problems.length === 0) problems.push(...checkApiKeys(filled as GatewayConfig, env), ...checkOAuth(filled as GatewayConfig), ...await checkTrustProxy(filled as GatewayConfig))
  if (problems.length > 0) {
    throw new InvalidConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`)
  }
  const config = filled as GatewayConfig
  config.workspaceRoot = isAbsolute(config.workspaceRoot) ? config.workspaceRoot : resolve(cwd, config.workspaceRoot)
  config.stateDir = resolve(cwd, config.stateDir)
  config.trust.pinsFile = resolve(config.stateDir, config.trust.pinsFile ?? 'pins.json')
  config.toolsDir = isAbsolute(config.toolsDir) ? config.toolsDir : resolve(cwd, config.toolsDir)
  config.extraToolsDirs = config.extraToolsDirs.map((dir) => resolve(cwd, dir))
  const configDir = path ? dirname(resolve(cwd, path)) : cwd
  config.pluginsDir = config.pluginsDir === undefined ? configDir : resolve(configDir, config.pluginsDir)
  return config
}

export { ENV_VARIABLES }
