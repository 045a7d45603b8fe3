// JSON pointers inside an MCP tool schema: rewriting `definitions` to `$defs` where it is a keyword,
// and following a local pointer to what it names.
import { isRecord } from '../shared/objects.ts'
import { SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_SINGLE } from './vocabulary.ts'

/** Rewrites `definitions` segments that sit where a keyword is expected; a property called "definitions" is left alone. */
export function rewriteDefinitionsPointer (ref: string): string {
  if (!ref.startsWith('#/')) return ref
  const segments = ref.slice(2).split('/')
  let at: 'schema' | 'name' | 'index' | 'items' | 'data' = 'schema'
  const out = segments.map((segment) => {
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~')
    switch (at) {
      case 'schema':
        if (SCHEMA_MAPS.has(key)) at = 'name'
        else if (SCHEMA_LISTS.has(key)) at = 'index'
        else if (key === 'items') at = 'items'
        else if (!SCHEMA_SINGLE.has(key)) at = 'data'
        return key === 'definitions' ? '$defs' : segment
      case 'name':
      case 'index':
        at = 'schema'
        return segment
      case 'items':
        // `items/3` is a tuple member; `items/properties` is a keyword of the single items schema.
        if (/^\d+$/.test(key)) {
          at = 'schema'
          return segment
        }
        at = SCHEMA_MAPS.has(key) ? 'name' : SCHEMA_LISTS.has(key) ? 'index' : key === 'items' ? 'items' : SCHEMA_SINGLE.has(key) ? 'schema' : 'data'
        return key === 'definitions' ? '$defs' : segment
      default:
        return segment
    }
  })
  return `#/${out.join('/')}`
}

/** What a local pointer (`#`, `#/a/0/b`) names in `root`, or undefined when it names nothing. */
export function resolvePointer (root: unknown, ref: string): unknown {
  if (ref === '#') return root
  if (!ref.startsWith('#/')) return undefined
  let node: unknown = root
  for (const raw of ref.slice(2).split('/')) {
    let key: string
    try {
      key = decodeURIComponent(raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    } catch {
      return undefined
    }
    if (Array.isArray(node) && /^\d+$/.test(key)) node = node[Number(key)]
    else if (isRecord(node) && Object.hasOwn(node, key)) node = node[key]
    else return undefined
  }
  return node
}
