// What a plugin module sees and exports: the ctx handed to register(ctx), and the module shape the
// loader accepts. Plugin authors import these types (`import type`) and nothing else from the gateway.
import type { Logger } from 'pino'
import type { GatewayConfig } from '../config/schema.ts'
import type { HookName, PostToolCallHook, PreToolCallHook, TransformToolResultHook } from '../dispatch/call/hooks.ts'
import type { JsonSchema, RegisterOptions, ToolEntry } from '../registry/types.ts'

/**
 * Every registration option except `origin`, which the loader sets; `toolset` defaults to the
 * plugin name. `P` types the handler's arguments from `schema.parameters`, as registry.register does.
 */
export type PluginToolOptions<P extends object = JsonSchema> = Omit<RegisterOptions<P>, 'origin' | 'toolset'> & { toolset?: string }

export interface PluginHooks {
  pre_tool_call: PreToolCallHook
  post_tool_call: PostToolCallHook
  transform_tool_result: TransformToolResultHook
}

export interface PluginContext {
  /** The plugin's name: its module's file name without extension, or its package name. */
  readonly name: string
  /** `options` of its config entry, as written (undefined when absent). */
  readonly options: unknown
  /** The validated gateway configuration, as it stands when read (a reload swaps it whole). */
  readonly config: GatewayConfig
  /** The folder relative paths of the config resolve against (the config file's folder, or cwd). */
  readonly baseDir: string
  /** The gateway logger with `plugin: <name>` bound. */
  readonly logger: Logger
  /** Registers a tool with origin `{ kind: 'plugin', plugin: name }`; throws on a refused registration. */
  registerTool: <const P extends object = JsonSchema>(options: PluginToolOptions<P>) => ToolEntry
  /** Adds a hook; an unknown name fails the plugin's load, naming the valid ones. */
  registerHook: <K extends HookName>(name: K, fn: PluginHooks[K]) => void
}

export type RegisterFunction = (ctx: PluginContext) => void | Promise<void>

/** `export function register (ctx)`, `export default { register }` or `export default function (ctx)`. */
export interface PluginModule {
  register?: RegisterFunction
  default?: RegisterFunction | { register?: RegisterFunction }
}
