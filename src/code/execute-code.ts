// execute_code (toolset `code`, CODE_MODE=true): a model's JavaScript runs in a QuickJS sandbox
// (src/code/sandbox) and calls the caller's tools as `tools.<name>(args)`; only what it returns and
// logs reaches the model. Each of its calls is a call of its own (ctx.callTool): the caller's scope,
// coercion, validation, hooks, approvals, a deadline within this one's, a span, metrics and an audit
// line. Registered by the gateway (src/core/gateway.ts), like search_tools, because it reads the
// registry and the definitions' declarations, which tools/ may not import.
import type { CodeSettings } from '../config/code-schema.ts'
import type { ToolRegistry } from '../registry/registry.ts'
import { toolError, toolResult } from '../registry/tool-result.ts'
import type { ToolContext, ToolEntry } from '../registry/types.ts'
import { CODE_TOOL_NAME, CodeDescription } from './description.ts'
import { innerAnswer } from './inner-answer.ts'
import { ScriptRunner, type ScriptOutcome } from './sandbox/index.ts'
import { ScriptSlots } from './script-slots.ts'
import { MAX_TIMER_MS } from '../shared/timers.ts'

export { CODE_TOOL_NAME }
export const CODE_TOOLSET = 'code'

/** The tools a script of this caller may call: those it may see, but not execute_code (scripts do not nest). */
function toolsInScope (registry: ToolRegistry, ctx: ToolContext): string[] {
  const visible = ctx.visible
  return [...registry.snapshot().tools.keys()].filter((name) => name !== CODE_TOOL_NAME && (visible?.(name) ?? true)).sort()
}

function answerOf (outcome: ScriptOutcome): string {
  if (outcome.ok) return toolResult({ result: outcome.result, logs: outcome.logs, calls: outcome.calls })
  return toolError(outcome.message, { kind: outcome.kind, logs: outcome.logs, calls: outcome.calls })
}

export function registerCodeTool (registry: ToolRegistry, settings: CodeSettings): ToolEntry {
  const runner = new ScriptRunner({ workers: settings.workers })
  const slots = new ScriptSlots()
  const description = new CodeDescription(() => registry.generation)
  return registry.register({
    name: CODE_TOOL_NAME,
    toolset: CODE_TOOLSET,
    emoji: '🧮',
    annotations: { title: 'Run a script that calls tools', readOnly: false, destructive: true, openWorld: true },
    description: 'Run a JavaScript script that calls many tools and returns one answer.',
    schema: {
      parameters: {
        type: 'object',
        properties: {
          code: { type: 'string', minLength: 1, description: 'The body of an async function: `const r = await tools.read_file({ path: "a.txt" }); return r.length`.' }
        },
        required: ['code'],
        additionalProperties: false
      }
    },
    dynamicSchemaOverrides: (view) => ({ description: description.of(view) }),
    async handler (args, ctx) {
      const code = String(args.code)
      const limits = (ctx.config as { code?: CodeSettings }).code ?? settings
      if (code.length > limits.maxCodeChars) return toolError(`the script is ${code.length} characters long; code.maxCodeChars allows ${limits.maxCodeChars}`)
      const callTool = ctx.callTool
      if (callTool === undefined) return toolError(`${CODE_TOOL_NAME} cannot run here: a script cannot start another script`)
      const owner = ctx.principal ?? ''
      if (!slots.take(owner, limits.maxScriptsPerCaller)) {
        return toolError(`this caller already has ${limits.maxScriptsPerCaller} scripts running or waiting (code.maxScriptsPerCaller); wait for one to end`)
      }
      try {
        const outcome = await runner.run({
          code,
          toolNames: toolsInScope(registry, ctx),
          // The call's own deadline (within this ceiling) stops the script through its signal, and
          // answers the call as timed out.
          timeoutMs: Math.min((ctx.config as { dispatch?: { maxTimeoutMs?: number } }).dispatch?.maxTimeoutMs ?? MAX_TIMER_MS, MAX_TIMER_MS),
          signal: ctx.signal,
          limits: {
            memoryBytes: limits.memoryMb * 1024 * 1024,
            stackBytes: limits.stackKb * 1024,
            maxCalls: limits.maxCalls,
            maxConcurrentCalls: limits.maxConcurrentCalls,
            maxOutputBytes: limits.maxOutputBytes
          },
          callTool: async (name, callArgs, signal) => innerAnswer(name, await callTool(name, callArgs, signal))
        })
        return answerOf(outcome)
      } finally {
        slots.release(owner)
      }
    },
    dispose: async () => { await runner.close() }
  })
}
