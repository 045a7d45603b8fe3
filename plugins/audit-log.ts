// Sample plugin: an audit trail of tool calls, one JSON line per call appended to a file. Arguments
// are left out unless asked for, and then the names the config marks secret are redacted.
import { appendFile, mkdir } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import type { PluginContext } from '../src/plugins/types.ts'

export interface AuditLogOptions {
  /** The file lines are appended to; relative to the config file's folder. */
  path: string
  /** Also record the (coerced) arguments, secret names redacted. Default false. */
  includeArguments?: boolean
}

const KNOWN_OPTIONS = new Set(['path', 'includeArguments'])
const REDACTED = '[redacted]'
// Arguments are parsed JSON, but a programmatic caller could hand a cyclic object: stop somewhere.
const MAX_DEPTH = 32

function parseOptions (value: unknown): AuditLogOptions {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error('audit-log needs options { path, includeArguments? }')
  }
  const options = value as Record<string, unknown>
  const unknown = Object.keys(options).filter((key) => !KNOWN_OPTIONS.has(key))
  // A misspelt option would silently do nothing: refuse it.
  if (unknown.length > 0) throw new Error(`audit-log: unknown option(s) ${unknown.join(', ')}; known: path, includeArguments`)
  if (typeof options.path !== 'string' || options.path.trim() === '') throw new Error('audit-log: options.path must be a file path')
  if (options.includeArguments !== undefined && typeof options.includeArguments !== 'boolean') {
    throw new Error('audit-log: options.includeArguments must be true or false')
  }
  return { path: options.path, includeArguments: options.includeArguments === true }
}

/** A copy with the value of every key named in `secrets`, at any depth, replaced. */
export function redact (value: unknown, secrets: ReadonlySet<string>, depth = 0): unknown {
  if (typeof value !== 'object' || value === null) return value
  if (depth >= MAX_DEPTH) return '[too deep]'
  if (Array.isArray(value)) return value.map((item) => redact(item, secrets, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    out[key] = secrets.has(key) ? REDACTED : redact(item, secrets, depth + 1)
  }
  return out
}

export async function register (ctx: PluginContext): Promise<void> {
  const options = parseOptions(ctx.options)
  const file = resolve(ctx.baseDir, options.path)
  await mkdir(dirname(file), { recursive: true })
  const secrets = new Set(ctx.config.logging.secretArguments)
  // One append per line (the file is reopened each time, so log rotation needs no signal), chained
  // so that lines land in the order calls finished.
  let queue: Promise<void> = Promise.resolve()

  ctx.registerHook('post_tool_call', (event) => {
    let text: string
    try {
      const line: Record<string, unknown> = {
        time: new Date().toISOString(),
        tool: event.tool,
        callId: event.callId,
        sessionId: event.sessionId,
        status: event.status,
        durationMs: event.durationMs
      }
      if (options.includeArguments) line.args = redact(event.args, secrets)
      text = JSON.stringify(line) + '\n'
    } catch (err) {
      ctx.logger.error({ err, tool: event.tool, callId: event.callId }, 'audit-log: cannot serialise the call')
      return
    }
    // The call waits for its line: when the response goes out, the audit trail has it.
    queue = queue
      .then(() => appendFile(file, text, { mode: 0o600 }))
      .catch((err: unknown) => { ctx.logger.error({ err, file }, 'audit-log: cannot append to the audit file') })
    return queue
  })
  ctx.logger.info({ file, includeArguments: options.includeArguments }, 'audit-log: writing one line per tool call')
}
