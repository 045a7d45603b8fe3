// Which configuration fields a reload applies and which need a restart, and the applying. A field
// applies when the running gateway reads it from the running configuration at each call (tools read
// ctx.config, the dispatcher its limits and overrides) or can be handed the new value here (the keys,
// the custom toolsets, the redacted secrets); the tool folders and MCP servers are applied by the
// reload itself. Any other
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

/**
 * The configuration a reload runs with: the running one, with the applied fields of `next` in it.
 * A new object: the running one is never edited, so a call under way keeps reading the one it
 * started with.
 */
export function mergedConfig (live: GatewayConfig, next: GatewayConfig, applied: readonly string[]): GatewayConfig {
  const merged: Record<string, unknown> = { ...live }
  for (const field of applied) {
    switch (field) {
      case 'auth.keys':
        merged.auth = { ...(merged.auth as GatewayConfig['auth']), keys: next.auth.keys }
        break
      case 'logging.secretEnv':
        merged.logging = { ...(merged.logging as GatewayConfig['logging']), secretEnv: next.logging.secretEnv }
        break
      default:
        // Top-level fields: toolsDir, extraToolsDirs, mcpServers, toolsets, tools, dispatch, web, terminal, workspaceMaxBytes, workspaceMaxFiles.
        merged[field] = (next as unknown as Record<string, unknown>)[field]
    }
  }
  return merged as unknown as GatewayConfig
}

/**
 * Makes the applied fields of `next` the running configuration (swapped whole), and hands them to
 * the parts that keep their own copy. The tool folders and MCP servers are only recorded: the
 * reload rediscovers and reconnects after this.
 */
export function applySettings (gateway: Gateway, authenticator: Authenticator, next: GatewayConfig, applied: readonly string[], env: NodeJS.ProcessEnv): void {
  const merged = mergedConfig(gateway.config, next, applied)
  if (applied.includes('toolsets')) gateway.catalog.setCustom(merged.toolsets)
  if (applied.includes('auth.keys')) authenticator.replaceKeys(merged)
  gateway.replaceConfig(merged)
  if (applied.includes('auth.keys') || applied.includes('logging.secretEnv')) gateway.errorContent.update(secretSettingsOf(merged, env))
}
