// The JSON Schema keywords the MCP schema normaliser knows by position: those that hold subschemas
// (a map of them, one, or a list), references and anchors, and the type names. Shared by the copy
// and the rewrite of `definitions` pointers, which must agree on where a schema sits.

export const JSON_TYPES: ReadonlySet<string> = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'])
// Keywords whose value maps names to schemas, holds one schema, or a list of schemas.
export const SCHEMA_MAPS: ReadonlySet<string> = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'])
export const SCHEMA_SINGLE: ReadonlySet<string> = new Set(['additionalProperties', 'additionalItems', 'contains', 'propertyNames', 'not',
  'if', 'then', 'else', 'unevaluatedProperties', 'unevaluatedItems', 'contentSchema'])
export const SCHEMA_LISTS: ReadonlySet<string> = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems'])
export const REF_KEYWORDS: ReadonlySet<string> = new Set(['$ref', '$dynamicRef', '$recursiveRef'])
export const ANCHOR_KEYWORDS: ReadonlySet<string> = new Set(['$anchor', '$dynamicAnchor'])
