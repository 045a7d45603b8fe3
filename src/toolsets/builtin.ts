// The static toolsets every gateway knows: named groups of tools that composites build on.

/** A static toolset: its own tools plus the toolsets it includes (resolved recursively). */
export interface ToolsetDefinition {
  description: string
  tools: readonly string[]
  includes: readonly string[]
}

function define (description: string, tools: string[], includes: string[] = []): ToolsetDefinition {
  return Object.freeze({ description, tools: Object.freeze(tools), includes: Object.freeze(includes) })
}

// The descriptions are read by models choosing what to enable, so they say what the tools can do
// and what they cannot, rather than how they are built.
export const BUILTIN_TOOLSETS: Readonly<Record<string, ToolsetDefinition>> = Object.freeze({
  file: define(
    'Read, create, edit and search files in the workspace: read a file, write a whole file, patch part of a file, search file names and contents.',
    ['read_file', 'write_file', 'patch', 'search_files']
  ),
  web: define(
    'Search the web and extract the readable content of web pages.',
    ['web_search', 'web_extract']
  ),
  terminal: define(
    'Run shell commands in a terminal and manage the background processes they start.',
    ['terminal', 'process']
  ),
  results: define(
    'Read the rest of a tool result that was cut to its size limit, by the id its truncation notice gives.',
    ['read_result']
  ),
  // The composites include `results`: their tools (pages, command output) are the ones that get cut.
  safe: define(
    'Read-only research: web search and page extraction only (and reading the rest of a cut result). No terminal, no file access, nothing that changes the machine.',
    [],
    ['web', 'results']
  ),
  debugging: define(
    'Everything needed to investigate and fix code: run commands in a terminal, read and edit files, look things up on the web, and read the rest of a cut result.',
    [],
    ['terminal', 'web', 'file', 'results']
  )
})

/** The builtin toolset called `name`; own keys only, so `toString` or `__proto__` is not a toolset. */
export function getBuiltinToolset (name: string): ToolsetDefinition | undefined {
  return Object.hasOwn(BUILTIN_TOOLSETS, name) ? BUILTIN_TOOLSETS[name] : undefined
}
