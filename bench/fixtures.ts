// The files the benchmark works on, generated afresh in a temp folder for every run and the same on
// every run (no randomness): the workspace both the gateway and the floor read, search and write, and
// the tool modules the gateway discovers (the echo tool, and 1 000 tools with realistic schemas).
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

export const SMALL_FILE = 'small.txt'
/** The 8 files of the batch scenario, each as small as SMALL_FILE. */
export const BATCH_FILES = Array.from({ length: 8 }, (_, i) => `batch/file-${i + 1}.txt`)
export const BIG_FILE = 'big.txt'
/** The page of BIG_FILE the read-page scenario asks for: the default limit from a line in the middle. */
export const BIG_FILE_OFFSET = 6000
/** The file every write replaces (the same path per request: an agent rewriting a file). */
export const WRITE_FILE = 'notes/todo.md'
export const WRITE_CONTENT = '# To do\n\n- measure what users run against a floor doing the same work\n'
/** The folder searched, and the pattern: about 290 matching lines spread over its 2 000 files. */
export const SEARCH_FOLDER = 'tree'
export const SEARCH_PATTERN = 'TODO'
export const SEARCH_FILES = 2000
export const DEFINITION_TOOLS = 1000
const TOOLS_PER_MODULE = 10

export interface Fixtures {
  workspace: string
  /** EXTRA_TOOLS_DIRS of the gateway with the built-ins: the echo tool alone. */
  echoTools: string
  /** EXTRA_TOOLS_DIRS of the gateway with 1 000 tools. */
  manyTools: string
}

const WORDS = ['request', 'handler', 'schema', 'result', 'gateway', 'tool', 'workspace', 'config', 'route', 'page', 'limit', 'error']

/** A deterministic line of 40 to 110 characters, like source code or prose. */
function line (n: number): string {
  const words: string[] = []
  let length = 0
  const target = 40 + (n * 37) % 70
  for (let i = 0; length < target; i++) {
    const word = WORDS[(n * 7 + i * 3) % WORDS.length]
    words.push(word)
    length += word.length + 1
  }
  return `  const ${words.join('_')} = ${n}`.slice(0, target)
}

function bigFile (): string {
  const lines: string[] = []
  let size = 0
  for (let n = 1; size < 1024 * 1024; n++) {
    const text = line(n)
    lines.push(text)
    size += text.length + 1
  }
  return `${lines.join('\n')}\n`
}

/** File i of the search tree: 30 lines; one in seven files holds one line with the pattern. */
function treeFile (i: number): string {
  const lines = Array.from({ length: 30 }, (_, n) => line(i * 31 + n))
  if (i % 7 === 0) lines[(i % 29) + 1] = `  // ${SEARCH_PATTERN}: handle the case of file ${i}`
  return `${lines.join('\n')}\n`
}

/** tree/dNN/sN/fileNNNN.ts: 20 folders of 10 sub-folders of 10 files. */
async function searchTree (root: string): Promise<void> {
  for (let i = 0; i < SEARCH_FILES; i++) {
    const folder = join(root, SEARCH_FOLDER, `d${String(Math.floor(i / 100)).padStart(2, '0')}`, `s${Math.floor(i / 10) % 10}`)
    if (i % 10 === 0) await mkdir(folder, { recursive: true })
    await writeFile(join(folder, `file${String(i).padStart(4, '0')}.ts`), treeFile(i))
  }
}

const VERBS = ['list', 'get', 'create', 'update', 'delete', 'search', 'sync', 'export', 'import', 'check']
const NOUNS = ['issues', 'files', 'users', 'events', 'notes', 'tickets', 'builds', 'deploys', 'reports', 'alerts']

/** A realistic small tool: 2 to 5 described parameters, some enums, bounds and required ones. */
export function definitionTool (i: number): { name: string, toolset: string, description: string, schema: { parameters: unknown } } {
  const verb = VERBS[i % VERBS.length]
  const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length]
  const properties: Record<string, unknown> = {
    query: { type: 'string', description: `Text to match against the ${noun}.` },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Most results returned.' }
  }
  if (i % 2 === 0) properties.order = { type: 'string', enum: ['asc', 'desc'], description: 'Sort order by creation time.' }
  if (i % 3 === 0) properties.tags = { type: 'array', items: { type: 'string' }, description: 'Only items carrying all these tags.' }
  if (i % 5 === 0) properties.include_archived = { type: 'boolean', description: 'Also return archived items.' }
  return {
    name: `${verb}_${noun}_${String(i).padStart(4, '0')}`,
    toolset: `bench_${i % 20}`,
    description: `${verb[0].toUpperCase()}${verb.slice(1)} ${noun} in the project tracker; returns JSON with an id and title per item.`,
    schema: { parameters: { type: 'object', properties, required: ['query'], additionalProperties: false } }
  }
}

/** A tool module as a user writes one (docs/tools.md, "Adding your own tools"): a top-level register call per tool. */
function toolModule (specs: unknown[], handler: string): string {
  return [
    "import { registry, toolResult } from 'tool-gateway/registry'",
    ...specs.map((spec) => `registry.register(${JSON.stringify(spec).slice(0, -1)}, "handler": ${handler} })`),
    ''
  ].join('\n')
}

/** A folder of tool modules, TOOLS_PER_MODULE tools each (1 000 tools: 100 modules, as many small files are more likely than one huge one). */
async function toolFolder (dir: string, specs: unknown[], handler: string): Promise<string> {
  await mkdir(dir, { recursive: true })
  // Without "type": "module" above it, Node would warn and parse each module twice (docs/tools.md).
  await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n')
  for (let i = 0; i < specs.length; i += TOOLS_PER_MODULE) {
    await writeFile(join(dir, `tools-${String(i / TOOLS_PER_MODULE).padStart(3, '0')}.js`), toolModule(specs.slice(i, i + TOOLS_PER_MODULE), handler))
  }
  return dir
}

export async function makeFixtures (scratch: string): Promise<Fixtures> {
  const workspace = join(scratch, 'workspace')
  await mkdir(join(workspace, 'batch'), { recursive: true })
  await mkdir(join(workspace, 'notes'), { recursive: true })
  const small = 'one: the first line\ntwo: the second line\nthree: the last line\n'
  await writeFile(join(workspace, SMALL_FILE), small)
  for (const file of BATCH_FILES) await writeFile(join(workspace, file), small.replace('first', file))
  await writeFile(join(workspace, BIG_FILE), bigFile())
  await writeFile(join(workspace, WRITE_FILE), WRITE_CONTENT)
  await searchTree(workspace)
  const echo = { name: 'echo', toolset: 'bench', description: 'Answers its text.', schema: { parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } } }
  return {
    workspace,
    echoTools: await toolFolder(join(scratch, 'echo-tools'), [echo], 'async (args) => toolResult({ text: args.text })'),
    manyTools: await toolFolder(join(scratch, 'many-tools'), Array.from({ length: DEFINITION_TOOLS }, (_, i) => definitionTool(i)), 'async (args) => toolResult({ args })')
  }
}
