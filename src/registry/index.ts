// What tool modules import: `registry` to self-register, the result helpers, and the types.
export { registry } from './scope.ts'
export { toolResult, toolError } from './tool-result.ts'
export type { RegisterOptions, ToolContext, ToolHandler, CheckFn, CheckContext, CheckVerdict, JsonSchema } from './types.ts'
