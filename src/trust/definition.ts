// What of an upstream tool is pinned: its name, title, description, input schema and annotations,
// as the server gave them (before any cleaning), and the digest that stands for them.
import { createHash } from 'node:crypto'
import { canonicalJson } from '../shared/canonical-json.ts'

export interface PinnedDefinition {
  name: string
  title?: unknown
  description?: unknown
  inputSchema?: unknown
  annotations?: unknown
}

/** A field of the definition that differs from the pinned one. */
export interface DefinitionChange {
  field: 'title' | 'description' | 'inputSchema' | 'annotations'
  old: unknown
  new: unknown
}

const FIELDS = ['title', 'description', 'inputSchema', 'annotations'] as const

/** The fields that are pinned, from whatever the server listed. */
export function definitionOf (tool: { name: string, title?: unknown, description?: unknown, inputSchema?: unknown, annotations?: unknown }): PinnedDefinition {
  const definition: PinnedDefinition = { name: tool.name }
  for (const field of FIELDS) if (tool[field] !== undefined) definition[field] = tool[field]
  return definition
}

export function digestOf (definition: PinnedDefinition): string {
  return 'sha256:' + createHash('sha256').update(canonicalJson(definition), 'utf8').digest('hex')
}

/** The fields that differ between the pinned definition and the one listed now, old and new. */
export function changesOf (old: PinnedDefinition, now: PinnedDefinition): DefinitionChange[] {
  return FIELDS.filter((field) => canonicalJson(old[field]) !== canonicalJson(now[field]))
    .map((field) => ({ field, old: old[field] ?? null, new: now[field] ?? null }))
}
