// Redacts credentials from error text before it reaches the model (issue 11): upstream APIs, MCP
// servers and libraries echo tokens in their errors. Three sources: the usual credential shapes,
// the values the caller sent under secret argument names, and the values of the environment
// variables the config marks secret.
import { isRecord } from '../../shared/objects.ts'

export const REDACTED = '[redacted]'

/** Secrets shorter than this are not searched for: redacting "ab" everywhere would garble every message. */
export const MIN_SECRET_LENGTH = 4

// Value characters stop at quotes, separators, whitespace and backslashes (never half an escape).
// A known prefix is enough, whatever the length after it: a short or truncated token is still a
// credential (or most of one), and these prefixes name nothing else.
const CREDENTIAL_SHAPES: readonly RegExp[] = [
  /\bgh[pousr]_[A-Za-z0-9]+/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]+/g,
  /\bsk-[A-Za-z0-9_-]+/g, // OpenAI, Anthropic (sk-ant-...), and others' secret keys
  /\bxox[abposr]-[A-Za-z0-9-]+/g, // Slack
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, // AWS access key ids
  /\bAIza[0-9A-Za-z_-]+/g, // Google API keys
  /\bglpat-[A-Za-z0-9_-]+/g, // GitLab
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}/g, // JWTs
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g
]
// `Bearer <credential>` and the like: keep the scheme, so the message still says what was sent. A
// credential has a digit or is long: "Basic authentication failed" names no credential.
const AUTH_SCHEME = /\b(Bearer|Basic)(\s+)(?!\[redacted\])(?:(?=[A-Za-z._~+/=-]*\d)[A-Za-z0-9._~+/=-]{6,}|[A-Za-z0-9._~+/=-]{24,})/gi
// `token=...`, `api_key: ...`, `"password": "..."`: keep the name. Not a path segment or a file
// name ("/etc/passwd: refused", "https://host/secret: refused").
const SECRET_ASSIGNMENT = /(?<![\w/.\\-])((?:[A-Za-z0-9]+[_-])*(?:token|api[_-]?key|apikey|password|passwd|secret|credentials?|sig|signature))(["']?\s*[=:]\s*["']?)(?!\[redacted\])([^\s"'&,;<>\\]+)/gi
// `scheme://user:password@host`
const URL_USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:@/]+:)[^\s@/]+@/gi

export interface SecretSettings {
  /** Argument names (at any depth) whose values are redacted. */
  secretArguments?: readonly string[]
  /** Literal values to redact (the secret environment variables' values). */
  secretValues?: readonly string[]
}

/** The config fields that name secrets, as a structural type so dispatch needs no config import. */
export interface SecretConfig {
  logging: { secretArguments: readonly string[], secretEnv: readonly string[] }
  auth: { keys: ReadonlyArray<{ env?: string }> }
}

/** Secret settings from the config: the secret env variables and the variables API keys are read from. */
export function secretSettingsOf (config: SecretConfig, env: NodeJS.ProcessEnv): SecretSettings {
  const names = [...config.logging.secretEnv, ...config.auth.keys.flatMap((key) => key.env === undefined ? [] : [key.env])]
  const values = names.map((name) => env[name]).filter((value): value is string => typeof value === 'string')
  return { secretArguments: config.logging.secretArguments, secretValues: values }
}

function usable (values: Iterable<string>): string[] {
  // Longest first, so a secret that contains another is replaced whole.
  return [...new Set(values)].filter((value) => value.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length)
}

/** The string values under any of `names`, at any depth of the arguments. */
export function secretArgumentValues (args: unknown, names: ReadonlySet<string>, depth = 0, found: string[] = []): string[] {
  if (names.size === 0 || depth > 32) return found
  if (Array.isArray(args)) {
    for (const item of args) secretArgumentValues(item, names, depth + 1, found)
  } else if (isRecord(args)) {
    for (const [key, value] of Object.entries(args)) {
      if (names.has(key) && typeof value === 'string') found.push(value)
      else secretArgumentValues(value, names, depth + 1, found)
    }
  }
  return found
}

/** `text` with credential shapes and the given secret values replaced by [redacted]. */
export function redactText (text: string, secretValues: readonly string[] = []): string {
  let result = text
  for (const value of usable(secretValues)) {
    if (result.includes(value)) result = result.replaceAll(value, REDACTED)
  }
  for (const shape of CREDENTIAL_SHAPES) result = result.replace(shape, REDACTED)
  return result
    .replace(AUTH_SCHEME, `$1$2${REDACTED}`)
    .replace(SECRET_ASSIGNMENT, `$1$2${REDACTED}`)
    .replace(URL_USERINFO, `$1${REDACTED}@`)
}
