// Discovery's analysis runs in a child process (the parser's memory leaves with it): the child
// answers exactly what the analysis in this process answers, for every kind of module.
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { analyseHere, analyseInChild } from '../../src/discovery/analyse-modules.ts'

test('the child process gives the same verdicts as the analysis in this process: registering, helper, broken, unreadable', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-analyse-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const modules: Record<string, string> = {
    'tool.ts': 'import { registry } from "tool-gateway/registry"\nregistry.register({ name: "a" } as const)\n',
    'helper.mjs': 'export const twice = (x) => x * 2\n',
    'in-function.js': 'function later (registry) { registry.register({}) }\n',
    'broken.ts': 'registry.register({ name: "a" }\nconst = 1\n'
  }
  for (const [name, source] of Object.entries(modules)) await writeFile(join(dir, name), source)
  const files = [...Object.keys(modules).map((name) => join(dir, name)), join(dir, 'gone.ts')]

  const here = await analyseHere(files)
  const child = await analyseInChild(files)
  assert.deepEqual(child, here)
  const byName = new Map(child.map((verdict) => [verdict.file.slice(dir.length + 1), verdict]))
  assert.deepEqual(byName.get('tool.ts'), { file: join(dir, 'tool.ts'), registers: true, parseErrors: [] })
  assert.equal((byName.get('helper.mjs') as { registers: boolean }).registers, false)
  assert.equal((byName.get('in-function.js') as { registers: boolean }).registers, false)
  assert.match((byName.get('broken.ts') as { parseErrors: string[] }).parseErrors.join(), /line 2/)
  assert.match((byName.get('gone.ts') as { readError: string }).readError, /ENOENT/)
})
