// First step: find the tool in one registry snapshot and refuse it when its availability check fails.
import type { AvailabilityChecker } from '../../availability/checker.ts'
import type { RegistrySnapshot } from '../../registry/types.ts'
import { toolError } from '../../registry/tool-result.ts'
import { bindLogger, type Step } from '../pipeline.ts'

export function lookupStep (snapshot: () => RegistrySnapshot, availability: AvailabilityChecker): Step {
  return async function lookup (call, next) {
    const { name, visible } = call.request
    const entry = visible === undefined || visible(name) ? snapshot().tools.get(name) : undefined
    if (entry === undefined) {
      const message = `Unknown tool: ${call.request.name}`
      return { status: 'not_found', content: toolError(message), message }
    }
    const verdict = await availability.tool(entry)
    if (!verdict.available) {
      const message = `Tool ${entry.name} is unavailable: ${verdict.reason ?? 'its availability check failed'}`
      return { status: 'unavailable', content: toolError(message), message }
    }
    call.entry = entry
    bindLogger(call, { tool: entry.name })
    return next(call)
  }
}
