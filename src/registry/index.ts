// What tool modules import: `registry` to self-register, the result helpers, and the types. Tool
// modules outside the project reach this module as 'tool-gateway/registry' (REGISTRY_SPECIFIER).
export { registry, REGISTRY_SPECIFIER } from './scope.ts'
export { toolResult, toolError, mediaResult } from './tool-result.ts'
export { READ_RESULT_TOOL } from './types.ts'
export type { MediaResult, ToolMedia, ResultPage, RegisterOptions, ToolContext, ToolHandler, CheckFn, CheckContext, CheckVerdict, JsonSchema, ToolAnnotations, ToolProgress } from './types.ts'

/** Where REGISTRY_SPECIFIER resolves: this file, src/ or dist/ as the process runs. */
export const REGISTRY_MODULE_URL = import.meta.url
