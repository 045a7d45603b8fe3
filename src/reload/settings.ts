// Which configuration fields a reload applies and which need a restart, and the applying. A field
// applies when the running gateway reads it at each call (tools read ctx.config, the dispatcher its
// limits and overrides) or can be handed the new value here (the keys, the custom toolsets, the
// redacted secrets); the tool folders and MCP servers are applied by the reload itself. Any other
// field (host, port, the HTTP limits Fastify is built with, the stores, plugins...) keeps its
// running value until a restart: a new field is safe by default.
import type { Authenticator } from '../http/auth.ts'
import { isGuarded } from '../config/protected-mode.ts'
import type { GatewayConfig } from '../config/schema.ts'
import { secretSettingsOf } from '../dispatch/call/redact.ts'
import type { Gateway } from '../core/gateway.ts'
import { isRecord, sortedJson } from '../shared/objects.ts'

/** Fields (dotted paths) a reload applies; changes below them are reported under these names. */
export const APPLIED_FIELDS: readonly string[] = Object.freeze([
  'toolsDir', 'extraToolsDirs', 'mcpServers', 'toolsets', 'tools', 'dispatch', 'web', 'terminal', 'workspaceMaxBytes', 'workspaceMaxFiles',
  'auth.keys', 'logging.secretEnv'
])

export interface SettingsChanges {
  /** Changed fields the reload applies. */
  applied: string[]
  /** Changed fields that keep their running value until a restart. */
  needsRestart: string[]
}

/** The dotted paths of the fields that differ, at the depth of APPLIED_FIELDS, or of leaves elsewhere. */
export function changedFields (live: unknown, next: unknown, path = ''): string[] {
  const here = path === '' ? undefined : path
  if (here !== undefined && (APPLIED_FIELDS.includes(here) || !isRecord(live) || !isRecord(next))) {
    return sortedJson(live) === sortedJson(next) ? [] : [here]
  }
  const a = live as Record<string, unknown>
  const b = next as Record<string, unknown>
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()
  return keys.flatMap((key) => changedFields(a[key], b[key], path === '' ? key : `${path}.${key}`))
}

/** Sorts the changed fields into applied and needing a restart. */
export function classify (live: GatewayConfig, next: GatewayConfig): SettingsChanges {
  const changes: SettingsChanges = { applied: [], needsRestart: [] }
  for (const field of changedFields(live, next)) {
    // The check of keys is installed at start only where keys exist: open and guarded never swap live.
    const swapsOpenness = field === 'auth.keys' && isGuarded(live) !== isGuarded(next)
    if (APPLIED_FIELDS.includes(field) && !swapsOpenness) changes.applied.push(field)
    else changes.needsRestart.push(field)
  }
  return changes
}

/** Replaces an object's own entries, keeping the object: the dispatcher holds this very one. */
function replaceEntries (target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const key of Object.keys(target)) delete target[key]
  Object.assign(target, source)
}

/**
 * Puts the applied fields of `next` into the running configuration `live` (the object every part
 * of the gateway holds) and into the parts that keep their own copy. The tool folders and MCP
 * servers are only recorded: the reload rediscovers and reconnects after this.
 */
export function applySettings (gateway: Gateway, authenticator: Authenticator, next: GatewayConfig, applied: readonly string[], env: NodeJS.ProcessEnv): void {
  const live = gateway.config as GatewayConfig
  for (const field of applied) {
    switch (field) {
      case 'toolsets':
        gateway.catalog.setCustom(next.toolsets)
        live.toolsets = next.toolsets
        break
      case 'tools':
        replaceEntries(live.tools, next.tools)
        break
      case 'dispatch':
        Object.assign(gateway.dispatcher.limits, next.dispatch)
        live.dispatch = next.dispatch
        break
      case 'auth.keys':
        authenticator.replaceKeys(next)
        live.auth.keys = next.auth.keys
        break
      case 'logging.secretEnv':
        live.logging.secretEnv = next.logging.secretEnv
        break
      default:
        // Top-level fields read where they are used: toolsDir, extraToolsDirs, mcpServers, web, terminal, workspaceMaxBytes, workspaceMaxFiles.
        (live as Record<string, unknown>)[field] = (next as Record<string, unknown>)[field]
    }
  }
  if (applied.includes('auth.keys') || applied.includes('logging.secretEnv')) gateway.errorContent.update(secretSettingsOf(live, env))
}
