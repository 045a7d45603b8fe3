// First step: find the tool in one registry snapshot and refuse it when its availability check fails.
import type { AvailabilityChecker } from '../../availability/checker.ts'
import type { Availability } from '../../availability/checker.ts'
import type { RegistrySnapshot, ToolEntry } from '../../registry/types.ts'
import { toolError } from '../../registry/tool-result.ts'
import { type CallState, type Step, type StepOutput } from '../pipeline.ts'

export function lookupStep (snapshot: () => RegistrySnapshot, availability: AvailabilityChecker): Step {
  function proceed (call: CallState, next: (call: CallState) => StepOutput, entry: ToolEntry, verdict: Availability): StepOutput {
    if (!verdict.available) {
      const message = `Tool ${entry.name} is unavailable: ${verdict.reason ?? 'its availability check failed'}`
      return { status: 'unavailable', content: toolError(message), message }
    }
    // From here on the call's log lines name the tool (see createCallState).
    call.entry = entry
    return next(call)
  }
  return function lookup (call, next) {
    const { name, visible } = call.request
    const entry = visible === undefined || visible(name) ? snapshot().tools.get(name) : undefined
    if (entry === undefined) {
      const message = `Unknown tool: ${call.request.name}`
      return { status: 'not_found', content: toolError(message), message }
    }
    // A tool without a probe, or with a fresh verdict, goes on without waiting.
    const known = availability.known(entry)
    if (known !== undefined) return proceed(call, next, entry, known)
    return availability.tool(entry).then((verdict) => proceed(call, next, entry, verdict))
  }
}
