// The public registry module, the only part of the gateway a tool module imports: `registry` to
// self-register, the result helpers, the settings a tool reads (configOf), TypeBox's `Type` for
// typed parameters, and the types. Tool modules outside the project reach this module as
// 'tool-gateway/registry' (REGISTRY_SPECIFIER), which is also how they get `Type` without a
// node_modules of their own.
export { registry, REGISTRY_SPECIFIER } from './scope.ts'
export { toolResult, toolError, mediaResult } from './tool-result.ts'
export { configOf } from './tool-config.ts'
export type { ToolConfig } from './tool-config.ts'
export { READ_RESULT_TOOL } from './types.ts'
export type { ArgumentsOf, MediaResult, ToolMedia, ResultPage, RegisterOptions, ToolContext, ToolHandler, ToolSchema, CheckFn, CheckContext, CheckVerdict, JsonSchema, ToolAnnotations, ToolProgress, InputRequest, InputRequests, InputResponses, InputRequestMethod, InnerCallResult, SchemaView, DeclaredTool } from './types.ts'
export { messageOf } from '../shared/objects.ts'
export { Type } from 'typebox'
export type { Static, TSchema } from 'typebox'

/** Where REGISTRY_SPECIFIER resolves: this file, src/ or dist/ as the process runs. */
export const REGISTRY_MODULE_URL = import.meta.url
