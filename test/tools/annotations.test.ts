// Every built-in tool says what kind of tool it is, so an MCP client can ask before a destructive
// call and run read-only ones freely. A new built-in without its hints fails here.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.ts'

const EXPECTED: Record<string, Record<string, unknown>> = {
  read_file: { readOnly: true, openWorld: false },
  search_files: { readOnly: true, openWorld: false },
  // The same content written twice leaves the same file.
  write_file: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  // A replacement whose new text contains the old one changes the file again when repeated.
  patch: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  // Any command: it may delete files and, without the sandbox, reach the network.
  terminal: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  // kill stops processes; poll moves the read position.
  process: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  web_search: { readOnly: true, openWorld: true },
  web_extract: { readOnly: true, openWorld: true },
  // Reads the gateway's own store of cut results.
  read_result: { readOnly: true, openWorld: false }
}

test('the built-in tools declare their annotations, shown by GET /tools and GET /tools/:name', async (t) => {
  const { app } = await buildTestApp(t, {}, { builtins: true })
  const report = (await app.inject('/tools')).json() as { tools: Array<{ name: string, origin: { kind: string }, annotations: Record<string, unknown> }> }
  const builtins = report.tools.filter((tool) => tool.origin.kind === 'builtin')
  assert.deepEqual(builtins.map((tool) => tool.name).sort(), Object.keys(EXPECTED).sort(), 'every built-in has its expectation here')
  for (const tool of builtins) {
    const { title, ...hints } = tool.annotations
    assert.deepEqual(hints, EXPECTED[tool.name], tool.name)
    assert.equal(typeof title, 'string', `${tool.name} has a title for MCP clients to show`)
  }
  const detail = (await app.inject('/tools/write_file')).json() as { annotations: Record<string, unknown> }
  assert.deepEqual(detail.annotations, { title: 'Write file', ...EXPECTED.write_file })
})
