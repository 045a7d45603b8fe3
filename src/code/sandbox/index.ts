// The sandbox engine of code mode: a model's JavaScript run in QuickJS (WebAssembly), a fresh
// runtime per execution, in a warm pool of worker threads, with `tools.<name>(args)` calling the host.
export { ScriptRunner } from './runner.ts'
export type { InnerCallAnswer, RunScriptOptions, ScriptFailureKind, ScriptLimits, ScriptOutcome } from './types.ts'
