// What a tool reads of the gateway configuration. The registry types ctx.config as unknown (a
// handler's context is built by the dispatcher, by tests and by plugins alike); the gateway puts its
// validated configuration there, and this is the part of it tools may rely on.
import type { GatewayConfig } from '../config/schema.ts'

/** The settings tools read: the workspace root and its quotas, the web tools' settings, the terminal's. */
export type ToolConfig = Readonly<Pick<GatewayConfig, 'workspaceRoot' | 'workspaceMaxBytes' | 'workspaceMaxFiles' | 'web' | 'terminal'>>

/** The configuration of a call's or a check's context (`ctx.config`), as the settings tools read. */
export function configOf (ctx: { config: unknown }): ToolConfig {
  return ctx.config as ToolConfig
}
