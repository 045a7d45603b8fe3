import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import type { ToolsetDefinition } from '../../src/toolsets/builtin.ts'
import { resolveToolset } from '../../src/toolsets/resolve.ts'
import { ToolsetCatalog } from '../../src/toolsets/catalog.ts'
import { ToolRegistry } from '../../src/registry/registry.ts'

const TOOL_POOL = Array.from({ length: 10 }, (_, i) => `tool${i}`)

interface Graph {
  defs: Map<string, ToolsetDefinition>
  names: string[]
}

// Up to 12 toolsets; every edge is allowed, self loops and cycles included, plus includes of a
// name that does not exist.
const graphArb: fc.Arbitrary<Graph> = fc.integer({ min: 1, max: 12 }).chain((n) => {
  const names = Array.from({ length: n }, (_, i) => `ts${i}`)
  const node = fc.record({
    tools: fc.subarray(TOOL_POOL),
    includes: fc.array(fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: fc.constant('ghost') }), { maxLength: 6 })
  })
  return fc.array(node, { minLength: n, maxLength: n }).map((nodes) => ({
    names,
    defs: new Map(nodes.map((d, i) => [names[i], { description: names[i], tools: d.tools, includes: d.includes }]))
  }))
})

/** Independent reference: breadth-first search over include edges, then the union of tools. */
function reachableTools (defs: Map<string, ToolsetDefinition>, roots: string[]): string[] {
  const seen = new Set<string>()
  const queue = [...roots]
  const tools = new Set<string>()
  for (let i = 0; i < queue.length; i++) {
    const name = queue[i]
    if (seen.has(name)) continue
    seen.add(name)
    const d = defs.get(name)
    if (!d) continue
    d.tools.forEach((t) => tools.add(t))
    queue.push(...d.includes)
  }
  return [...tools].sort()
}

function isSortedUnique (list: string[]): boolean {
  return list.every((v, i) => i === 0 || list[i - 1] < v)
}

test('resolution terminates, looks each toolset up once and returns exactly the reachable tools', () => {
  fc.assert(fc.property(graphArb, fc.nat(), ({ defs, names }, pick) => {
    const root = names[pick % names.length]
    const calls = new Map<string, number>()
    const lookup = (name: string): ToolsetDefinition | undefined => {
      const count = (calls.get(name) ?? 0) + 1
      // A resolver that loops would look a name up again; fail instead of hanging the run.
      if (count > 1) throw new Error(`toolset ${name} looked up ${count} times`)
      calls.set(name, count)
      return defs.get(name)
    }
    const got = resolveToolset(root, lookup)
    assert.deepEqual(got, reachableTools(defs, [root]))
    assert.ok(isSortedUnique(got))
  }), { numRuns: 500 })
})

test('one visited set shared across several roots yields the union of their reachable tools', () => {
  fc.assert(fc.property(graphArb, fc.array(fc.nat(), { minLength: 1, maxLength: 5 }), ({ defs, names }, picks) => {
    const roots = picks.map((p) => names[p % names.length])
    const visited = new Set<string>()
    const union = new Set<string>()
    for (const root of roots) resolveToolset(root, (n) => defs.get(n), visited).forEach((t) => union.add(t))
    assert.deepEqual([...union].sort(), reachableTools(defs, roots))
  }), { numRuns: 300 })
})

test('the catalog over random custom graphs: resolve and select agree with the reference', () => {
  // Graphs without the dangling include: the catalog rightly refuses those.
  const validGraph = graphArb.map(({ defs, names }) => ({
    names,
    defs: new Map([...defs].map(([k, d]) => [k, { ...d, includes: d.includes.filter((i) => i !== 'ghost') }]))
  }))
  fc.assert(fc.property(validGraph, fc.subarray(TOOL_POOL), fc.nat(), fc.nat(), ({ defs, names }, registered, a, b) => {
    const registry = new ToolRegistry()
    for (const name of registered) {
      registry.register({ name, toolset: 'pool', schema: { parameters: { type: 'object' } }, handler: () => 'ok' })
    }
    const custom = Object.fromEntries([...defs].map(([k, d]) => [k, { tools: [...d.tools], includes: [...d.includes] }]))
    const catalog = new ToolsetCatalog({ custom })
    const snapshot = registry.snapshot()
    const isRegistered = (t: string): boolean => registered.includes(t)
    const enabled = names[a % names.length]
    const disabled = names[b % names.length]

    const resolved = catalog.resolve([enabled], snapshot)
    assert.deepEqual(resolved, reachableTools(defs, [enabled]).filter(isRegistered))

    const removed = new Set(reachableTools(defs, [disabled]))
    const selected = catalog.select(snapshot, { enabled: [enabled], disabled: [disabled] })
    assert.deepEqual(selected, resolved.filter((t) => !removed.has(t)))
    assert.ok(isSortedUnique(selected))
  }), { numRuns: 200 })
})
