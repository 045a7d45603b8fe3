// What the tracing section of the configuration holds, named once for the modules that read it.
import type { GatewayConfig } from '../config/schema.ts'

export type TracingConfig = GatewayConfig['tracing']
