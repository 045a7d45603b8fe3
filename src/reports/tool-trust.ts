// What GET /tools shows of an upstream tool's trust (src/trust): held or served, the findings of
// its texts, and the difference from its pinned definition.
import { Type } from 'typebox'

export const ToolTrustReport = Type.Object({
  digest: Type.String({ description: 'The SHA-256 of its definition as listed now (name, title, description, input schema, annotations).' }),
  held: Type.Boolean({ description: 'Held back until an operator approves it (POST /admin/tools/:name/approve): left out of /definitions and /mcp.' }),
  reason: Type.Optional(Type.String({ description: 'Why it is held.' })),
  findings: Type.Array(Type.String(), { description: 'What the scan of its description and schema texts found (invisible or bidi characters, removed; instruction-like text; an oversized description), and a change served under trust.pinning warn.' }),
  changes: Type.Optional(Type.Array(Type.Object({
    field: Type.Enum(['title', 'description', 'inputSchema', 'annotations'], { description: 'The field of the definition that changed.' }),
    old: Type.Unknown({ description: 'As pinned (approved, or first seen).' }),
    new: Type.Unknown({ description: 'As the server lists it now.' })
  }), { description: 'How the listed definition differs from the pinned one.' }))
}, { description: 'The trust of an upstream MCP tool (docs/trust.md); absent for built-in, plugin and local tools, which are not pinned.' })
