// The schema of `trust.approval` and `trust.approvalTimeoutMs`: the tools whose calls wait for a
// person's approval of their exact arguments (docs/dispatch.md, Approvals). Spread into `trust`
// (trust-schema.ts), in a file of its own so that each part of `trust` stays small.
import { Type, type Static } from 'typebox'

/** The annotations that can select tools for approval: the hints that say a call may do harm. */
export const APPROVAL_ANNOTATIONS = ['destructive', 'openWorld'] as const

const ToolNames = Type.Array(Type.String({ minLength: 1 }), { description: 'Tool names whose calls wait for approval.' })

export const ApprovalSelectionSchema = Type.Union([
  ToolNames,
  Type.Object({
    tools: Type.Optional(ToolNames),
    annotations: Type.Optional(Type.Array(Type.Enum([...APPROVAL_ANNOTATIONS]), {
      description: 'Every tool with one of these hints, as MCP reads them (an undeclared hint takes its cautious default: destructive and openWorld unless the tool says otherwise, never for a readOnly tool).'
    }))
  }, { additionalProperties: false })
], {
  default: [],
  description: 'Tools whose calls wait for a person\'s approval of their exact arguments (POST /admin/approvals/:id) before they run: a list of tool names (TRUST_APPROVAL, comma-separated), or `{ tools, annotations }`, e.g. `{ annotations: [destructive] }`.'
})

export const ApprovalFields = {
  approval: ApprovalSelectionSchema,
  approvalTimeoutMs: Type.Integer({
    minimum: 1,
    maximum: 2_147_483_647,
    default: 600_000,
    description: 'How long a call waits for its approval; past it the approval expires and the call ends refused, saying so (TRUST_APPROVAL_TIMEOUT_MS).'
  })
}

export type ApprovalSelection = Static<typeof ApprovalSelectionSchema>
