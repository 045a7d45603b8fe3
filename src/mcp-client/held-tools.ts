// The availability probe of an upstream tool held back by src/trust: unavailable, saying why, so
// that /definitions and /mcp leave it out and /tools shows the reason.
import type { CheckFn } from '../registry/types.ts'

export function heldCheck (reason: string): CheckFn {
  const verdict = Object.freeze({ available: false, reason: `held until an operator approves it: ${reason}` })
  return Object.defineProperty(() => verdict, 'name', { value: 'trust:held' }) as CheckFn
}
