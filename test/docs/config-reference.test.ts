// Every environment variable the configuration reads is in docs/configuration.md's tables, named
// with its field, so an operator finds each setting where the README sends them.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { ENV_VARIABLES } from '../../src/config/env.ts'

const PAGE = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8')

/** The variables named in the first cell of a table row: `| \`NAME\`, \`OTHER\` | ...`. */
function documented (page: string): Set<string> {
  const cells = [...page.matchAll(/^\|([^|]*)\|/gm)].map((match) => match[1])
  return new Set(cells.flatMap((cell) => [...cell.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1])))
}

test('every variable of src/config/env.ts has a row in docs/configuration.md', () => {
  const rows = documented(PAGE)
  assert.deepEqual(Object.keys(ENV_VARIABLES).filter((name) => !rows.has(name)), [])
})

test('the check finds a variable without a row', () => {
  assert.equal(documented('| `PORT` | 8080 | the port |\n').has('HOST'), false)
  assert.equal(documented('| `HOST` | x | y |\n').has('HOST'), true)
  assert.equal(documented('| `PORT`, `HOST` | x | y |\n').has('HOST'), true)
  assert.equal(documented('| `PORT` | `HOST` | y |\n').has('HOST'), false, 'only the first cell names variables')
})
