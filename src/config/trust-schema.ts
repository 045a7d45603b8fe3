// The schema of `trust`: what the gateway does when an upstream MCP tool's definition changes or
// reads like an attack on the model (docs/trust.md). Part of the gateway configuration (schema.ts).
import { Type } from 'typebox'
import { ApprovalFields } from './approval-schema.ts'

export const TRUST_PINNING = ['enforce', 'warn', 'off'] as const

export const TrustSchema = Type.Object({
  pinning: Type.Enum([...TRUST_PINNING], {
    default: 'enforce',
    description: 'Pinned definitions of upstream MCP tools (TRUST_PINNING). enforce (default): a tool whose definition changed since it was pinned is held back until an operator approves it; warn: served, and flagged in /tools; off: nothing is pinned.'
  }),
  pinsFile: Type.Optional(Type.String({ minLength: 1, description: 'The file of pins (TRUST_PINS_FILE); default `pins.json` in stateDir. Unused with redis.url: the replicas share their pins in Redis.' })),
  holdNewTools: Type.Boolean({ default: false, description: 'Hold a new tool of a server that already has pinned tools until an operator approves it (TRUST_HOLD_NEW_TOOLS).' }),
  holdSuspicious: Type.Boolean({ default: false, description: 'Hold a tool whose description or schema texts have findings (hidden characters, instructions to the model, oversized text) until an operator approves it (TRUST_HOLD_SUSPICIOUS).' }),
  maxDescriptionChars: Type.Integer({ minimum: 100, default: 4_000, description: 'A description longer than this is a finding (TRUST_MAX_DESCRIPTION_CHARS).' }),
  ...ApprovalFields,
  syncIntervalMs: Type.Integer({ minimum: 100, maximum: 60_000, default: 1_000, description: 'With redis.url: how often a replica reads the shared pins\' version to follow another replica\'s approval.' })
}, { additionalProperties: false, default: {}, description: 'Trusting upstream MCP tools: pinned definitions, held changes, poisoned descriptions (docs/trust.md).' })
