// Tools receive the gateway configuration as `ctx.config` (unknown to the registry); this names its type.
import type { GatewayConfig } from './schema.ts'

export function configOf (ctx: { config: unknown }): GatewayConfig {
  return ctx.config as GatewayConfig
}
