// Sample plugin: a policy that blocks tool calls by name with glob patterns (picomatch), before the
// tool runs. The model gets the block message, naming the pattern, as the tool's error.
import picomatch from 'picomatch'
import type { PluginContext } from '../src/plugins/types.ts'

export interface PolicyOptions {
  /** Tool name patterns to block, e.g. ['terminal', 'mcp__*__delete_*']. */
  deny?: string[]
  /** When given, only tools matching one of these may run (deny still wins). */
  allow?: string[]
}

interface Rule { pattern: string, matches: (name: string) => boolean }

const KNOWN_OPTIONS = new Set(['deny', 'allow'])

function patterns (value: unknown, field: string): string[] | undefined {
  if (value === undefined) return undefined
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && item.trim() !== '')) {
    throw new Error(`policy: options.${field} must be a list of non-empty glob patterns`)
  }
  return value
}

function rules (list: string[]): Rule[] {
  return list.map((pattern) => ({ pattern, matches: picomatch(pattern) }))
}

export function register (ctx: PluginContext): void {
  const options = (ctx.options ?? {}) as Record<string, unknown>
  if (typeof options !== 'object' || Array.isArray(options)) throw new Error('policy needs options { deny?, allow? }')
  const unknown = Object.keys(options).filter((key) => !KNOWN_OPTIONS.has(key))
  // A misspelt key would leave everything open: refuse it.
  if (unknown.length > 0) throw new Error(`policy: unknown option(s) ${unknown.join(', ')}; known: deny, allow`)
  const deny = rules(patterns(options.deny, 'deny') ?? [])
  const allowList = patterns(options.allow, 'allow')
  const allow = allowList === undefined ? undefined : rules(allowList)
  if (deny.length === 0 && allow === undefined) throw new Error('policy: give options.deny and/or options.allow')

  ctx.registerHook('pre_tool_call', (event) => {
    const denied = deny.find((rule) => rule.matches(event.tool))
    if (denied !== undefined) {
      return { action: 'block', message: `tool "${event.tool}" is blocked by policy (deny pattern "${denied.pattern}")` }
    }
    if (allow !== undefined && !allow.some((rule) => rule.matches(event.tool))) {
      return { action: 'block', message: `tool "${event.tool}" is blocked by policy (it matches no allow pattern: ${allowList!.join(', ')})` }
    }
    return undefined
  })
  ctx.logger.info({ deny: deny.map((rule) => rule.pattern), allow: allowList }, 'policy: pre_tool_call rules active')
}
