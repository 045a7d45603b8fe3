// Imports run one way (docs/architecture.md): no file imports, even for a type, a file that
// imports it back, no folder of src/ depends on a folder that depends on it, and tool modules
// import only the public registry module of the gateway. Read from the sources with oxc-parser
// (static imports, re-exports and dynamic imports alike); a cycle found is named, file by file,
// and so is each import a tool module must not make, so the fix is where the test points.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { globSync, readFileSync } from 'node:fs'
import { dirname, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseSync } from 'oxc-parser'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

type Graph = Map<string, Set<string>>

/** Every module of src/, routes/ and tools/, as paths from the root. */
function sourceFiles (): string[] {
  return globSync(['src/**/*.ts', 'routes/**/*.ts', 'tools/**/*.ts'], { cwd: ROOT }).filter((file) => !file.endsWith('.d.ts')).sort()
}

/** The specifiers a module imports, as written: static imports, re-exports and dynamic imports of a literal. */
function specifiersOf (file: string): string[] {
  const source = readFileSync(resolve(ROOT, file), 'utf8')
  const { module } = parseSync(file, source, { sourceType: 'module' })
  const specifiers: string[] = []
  for (const entry of module.staticImports) specifiers.push(entry.moduleRequest.value)
  for (const entry of module.staticExports) for (const part of entry.entries) if (part.moduleRequest !== null) specifiers.push(part.moduleRequest.value)
  for (const entry of module.dynamicImports) {
    const literal = /^(['"])(.*)\1$/.exec(source.slice(entry.moduleRequest.start, entry.moduleRequest.end))
    if (literal !== null) specifiers.push(literal[2])
  }
  return specifiers
}

/** A relative specifier of `file` as a path from the root. */
function target (file: string, specifier: string): string {
  return relative(ROOT, resolve(ROOT, dirname(file), specifier.split('?')[0]))
}

/** The relative imports of every module of src/, routes/ and tools/, as paths from the root. */
function importGraph (): Graph {
  const graph: Graph = new Map()
  for (const file of sourceFiles()) {
    graph.set(file, new Set(specifiersOf(file).filter((specifier) => specifier.startsWith('.')).map((specifier) => target(file, specifier))))
  }
  return graph
}

/** The strongly connected components with more than one member: each is a cycle (or several). */
function cycles (graph: Graph): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (node: string): void => {
    index.set(node, next)
    low.set(node, next++)
    stack.push(node)
    onStack.add(node)
    for (const target of graph.get(node) ?? []) {
      if (!graph.has(target)) continue
      if (!index.has(target)) {
        visit(target)
        low.set(node, Math.min(low.get(node)!, low.get(target)!))
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!))
      }
    }
    if (low.get(node) !== index.get(node)) return
    const component: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.push(member)
    } while (member !== node)
    if (component.length > 1) found.push(component.sort())
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node)
  return found
}

/** The imports between the members of a cycle, to say where it runs. */
function edgesWithin (graph: Graph, members: string[], of: (file: string) => string = (file) => file): string[] {
  const inside = new Set(members)
  const lines: string[] = []
  for (const [from, targets] of graph) {
    for (const to of targets) {
      if (of(from) !== of(to) && inside.has(of(from)) && inside.has(of(to))) lines.push(`${of(from)} -> ${of(to)} (${from} imports ${to})`)
    }
  }
  return lines.sort()
}

test('no file imports a file that imports it back (type imports included)', () => {
  const graph = importGraph()
  assert.ok(graph.size > 200, `the sources were read (${graph.size} modules)`)
  const found = cycles(graph)
  assert.deepEqual(found.map((members) => edgesWithin(graph, members)), [], 'import cycles between files')
})

test('the folders of src/ depend on each other one way', () => {
  const graph = importGraph()
  const folderOf = (file: string): string => dirname(file)
  const folders: Graph = new Map()
  for (const [from, targets] of graph) {
    if (!from.startsWith('src/')) continue
    const folder = folders.get(folderOf(from)) ?? new Set()
    folders.set(folderOf(from), folder)
    for (const to of targets) if (to.startsWith('src/') && folderOf(to) !== folderOf(from)) folder.add(folderOf(to))
  }
  const found = cycles(folders)
  assert.deepEqual(found.map((members) => edgesWithin(graph, members, folderOf)), [], 'import cycles between folders')
})

/** The one module of the gateway a tool imports (tools/ imports only this of src/). */
const PUBLIC_REGISTRY = 'src/registry/index.ts'

/**
 * The imports a tool module may not make, each named: a tool imports files of tools/, node
 * builtins and packages ('tool-gateway/registry' among them), and of the gateway only the public
 * registry module; anything else (src/config, src/shared, routes/, ...) ties a tool to internals.
 */
function toolImportProblems (imports: ReadonlyMap<string, readonly string[]>): string[] {
  const problems: string[] = []
  for (const [file, specifiers] of imports) {
    for (const specifier of specifiers) {
      if (!specifier.startsWith('.') && !specifier.startsWith('/')) continue
      const to = specifier.startsWith('/') ? relative(ROOT, specifier) : target(file, specifier)
      if (to === PUBLIC_REGISTRY || to.startsWith('tools/')) continue
      problems.push(`${file} imports ${to} ('${specifier}'): tools import only ${PUBLIC_REGISTRY} of the gateway`)
    }
  }
  return problems.sort()
}

test('tool modules import only the public registry module', () => {
  const imports = new Map(sourceFiles().filter((file) => file.startsWith('tools/')).map((file) => [file, specifiersOf(file)]))
  assert.ok(imports.size > 40, `the tool modules were read (${imports.size})`)
  assert.deepEqual(toolImportProblems(imports), [])
})

test('the test can fail: a tool importing past the registry is named', () => {
  const imports = new Map([
    ['tools/web/web-search.ts', ['../../src/registry/index.ts', './lib/search.ts', 'node:path', 'undici', 'tool-gateway/registry', '../file/lib/workspace.ts']],
    ['tools/file/lib/workspace.ts', ['../../../src/config/of.ts', '../../../src/registry/scope.ts', '../../../routes/tools.ts']]
  ])
  assert.deepEqual(toolImportProblems(imports), [
    "tools/file/lib/workspace.ts imports routes/tools.ts ('../../../routes/tools.ts'): tools import only src/registry/index.ts of the gateway",
    "tools/file/lib/workspace.ts imports src/config/of.ts ('../../../src/config/of.ts'): tools import only src/registry/index.ts of the gateway",
    "tools/file/lib/workspace.ts imports src/registry/scope.ts ('../../../src/registry/scope.ts'): tools import only src/registry/index.ts of the gateway"
  ])
})

test('the test can fail: a cycle is found and named', () => {
  const graph: Graph = new Map([['a.ts', new Set(['b.ts'])], ['b.ts', new Set(['c.ts'])], ['c.ts', new Set(['a.ts'])], ['d.ts', new Set(['a.ts'])]])
  assert.deepEqual(cycles(graph), [['a.ts', 'b.ts', 'c.ts']])
  assert.deepEqual(edgesWithin(graph, ['a.ts', 'b.ts', 'c.ts']), ['a.ts -> b.ts (a.ts imports b.ts)', 'b.ts -> c.ts (b.ts imports c.ts)', 'c.ts -> a.ts (c.ts imports a.ts)'])
})

/** A module's row in docs/architecture.md's layer table: `src/dispatch/call`, `routes/`, `src/server.ts`. */
function rowOf (file: string): string {
  if (file.startsWith('routes/')) return 'routes/'
  if (file === 'src/server.ts') return file
  return dirname(file)
}

/** The short name the table's last column uses for a row: `dispatch/call`, `routes/`... */
function shortName (row: string): string {
  return row.startsWith('src/') ? row.slice('src/'.length) : row
}

interface LayerRow { layer: number, imports: Set<string> }

/** The layer table as the page writes it: folder → its layer and what it says the folder imports. */
function documentedLayers (page: string): Map<string, LayerRow> {
  const rows = new Map<string, LayerRow>()
  for (const [, layer, folder, importsCell] of page.matchAll(/^\| (\d+) \| \[`([^`]+)`\]\([^)]*\) \|.*\| ([^|]*) \|$/gm)) {
    const imports = importsCell.trim() === '—' ? [] : importsCell.split(',').map((name) => name.trim())
    rows.set(folder, { layer: Number(layer), imports: new Set(imports) })
  }
  return rows
}

/** Where the table and the code disagree: a folder missing, an import unlisted or gone, a layer not one above its imports. */
function layerProblems (graph: Graph, rows: ReadonlyMap<string, LayerRow>): string[] {
  const actual = new Map<string, Set<string>>()
  for (const [from, targets] of graph) {
    if (from.startsWith('tools/')) continue
    const imports = actual.get(rowOf(from)) ?? new Set<string>()
    actual.set(rowOf(from), imports)
    for (const to of targets) if (to.startsWith('src/') && rowOf(to) !== rowOf(from)) imports.add(shortName(rowOf(to)))
  }
  const problems: string[] = []
  const byShortName = new Map([...rows].map(([folder, row]) => [shortName(folder), row]))
  for (const [folder, imports] of actual) {
    const row = rows.get(folder)
    if (row === undefined) {
      problems.push(`${folder} has no row`)
      continue
    }
    for (const name of imports) if (!row.imports.has(name)) problems.push(`${folder} imports ${name}, not listed`)
    for (const name of row.imports) if (!imports.has(name)) problems.push(`${folder} lists ${name}, which it does not import`)
    // A folder without a row is named above; its layer is not guessed here.
    const expected = 1 + Math.max(-1, ...[...imports].map((name) => byShortName.get(name)?.layer ?? -1))
    if (row.layer !== expected) problems.push(`${folder} is at layer ${row.layer}, expected ${expected} (one above what it imports)`)
  }
  for (const folder of rows.keys()) if (!actual.has(folder)) problems.push(`${folder} has a row but no module`)
  return problems.sort()
}

test('docs/architecture.md\'s layer table says what each folder imports, each one layer above what it imports', () => {
  const page = readFileSync(resolve(ROOT, 'docs/architecture.md'), 'utf8')
  const rows = documentedLayers(page)
  assert.ok(rows.size > 20, `the table was read (${rows.size} rows)`)
  assert.deepEqual(layerProblems(importGraph(), rows), [])
})

test('the test can fail: a table that lags the code is named row by row', () => {
  const graph: Graph = new Map([
    ['src/shared/a.ts', new Set()],
    ['src/core/b.ts', new Set(['src/shared/a.ts', 'src/extra/c.ts'])],
    ['src/extra/c.ts', new Set()],
    ['routes/r.ts', new Set(['src/core/b.ts'])]
  ])
  const page = [
    '| 0 | [`src/shared`](x) | helpers | — |',
    '| 2 | [`src/core`](x) | the core | shared, gone |',
    '| 3 | [`routes/`](x) | routes | core |',
    '| 4 | [`src/old`](x) | moved away | shared |'
  ].join('\n')
  assert.deepEqual(layerProblems(graph, documentedLayers(page)), [
    'src/core imports extra, not listed',
    'src/core is at layer 2, expected 1 (one above what it imports)',
    'src/core lists gone, which it does not import',
    'src/extra has no row',
    'src/old has a row but no module'
  ])
})
