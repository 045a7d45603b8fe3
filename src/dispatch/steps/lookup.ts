// First step: find the tool in one registry snapshot and refuse it when its availability check fails.
import type { AvailabilityChecker } from '../../availability/checker.ts'
import type { RegistrySnapshot } from '../../registry/types.ts'
import { failed } from '../call/outcome.ts'
import type { Step } from '../call/pipeline.ts'

export function lookupStep (snapshot: () => RegistrySnapshot, availability: AvailabilityChecker): Step {
  return async function lookup (call, next) {
    const { name, visible } = call.request
    const entry = visible === undefined || visible(name) ? snapshot().tools.get(name) : undefined
    if (entry === undefined) {
      return failed('not_found', `Unknown tool: ${call.request.name}`)
    }
    // A tool without a probe, or with a fresh verdict, goes on without waiting for one.
    const verdict = availability.known(entry) ?? await availability.tool(entry)
    if (!verdict.available) {
      return failed('unavailable', `Tool ${entry.name} is unavailable: ${verdict.reason ?? 'its availability check failed'}`)
    }
    // From here on the call's log lines name the tool (see createCallState).
    call.entry = entry
    return await next(call)
  }
}
