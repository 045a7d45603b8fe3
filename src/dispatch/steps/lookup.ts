// First step: find the tool in one registry snapshot and refuse it when its availability check fails.
import type { AvailabilityChecker } from '../../availability/checker.ts'
import type { Availability } from '../../availability/checker.ts'
import type { RegistrySnapshot, ToolEntry } from '../../registry/types.ts'
import { failed } from '../outcome.ts'
import { type CallState, type Step, type StepOutput } from '../pipeline.ts'

export function lookupStep (snapshot: () => RegistrySnapshot, availability: AvailabilityChecker): Step {
  function proceed (call: CallState, next: (call: CallState) => StepOutput, entry: ToolEntry, verdict: Availability): StepOutput {
    if (!verdict.available) {
      return failed('unavailable', `Tool ${entry.name} is unavailable: ${verdict.reason ?? 'its availability check failed'}`)
    }
    // From here on the call's log lines name the tool (see createCallState).
    call.entry = entry
    return next(call)
  }
  return function lookup (call, next) {
    const { name, visible } = call.request
    const entry = visible === undefined || visible(name) ? snapshot().tools.get(name) : undefined
    if (entry === undefined) {
      return failed('not_found', `Unknown tool: ${call.request.name}`)
    }
    // A tool without a probe, or with a fresh verdict, goes on without waiting.
    const known = availability.known(entry)
    if (known !== undefined) return proceed(call, next, entry, known)
    return availability.tool(entry).then((verdict) => proceed(call, next, entry, verdict))
  }
}
