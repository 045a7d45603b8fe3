import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { assignToolNames, mcpToolName, mcpToolsetName, sanitizeNamePart } from '../../src/mcp-client/naming.ts'

const VALID = /^[a-zA-Z0-9_-]{1,64}$/

test('names are mcp__<server>__<tool> with every character outside [A-Za-z0-9_] replaced', () => {
  const cases: Array<[string, string, string]> = [
    ['everything', 'echo', 'mcp__everything__echo'],
    ['my-server', 'get.thing/x', 'mcp__my_server__get_thing_x'],
    ['s', 'with space', 'mcp__s__with_space'],
    ['s', 'ünï', 'mcp__s___n_'],
    ['s', 'a-b', 'mcp__s__a_b'],
    ['S_1', 'Tool_2', 'mcp__S_1__Tool_2']
  ]
  for (const [server, tool, expected] of cases) assert.equal(mcpToolName(server, tool), expected, `${server}/${tool}`)
  assert.equal(sanitizeNamePart('a-b.c d'), 'a_b_c_d')
})

test('a name of exactly 64 characters is kept; one character more is shortened to 64 with a hash', () => {
  const tool64 = 'x'.repeat(64 - 'mcp__srv__'.length)
  assert.equal(mcpToolName('srv', tool64), `mcp__srv__${tool64}`)
  const long = mcpToolName('srv', `${tool64}y`)
  assert.equal(long.length, 64)
  assert.match(long, VALID)
  assert.match(long, /^mcp__srv__x+_[0-9a-f]{8}$/, 'readable prefix, then _ and 8 hex characters')
})

test('shortening is deterministic and keeps apart long names that share a prefix', () => {
  const prefix = 'a_very_long_tool_name_that_goes_on_and_on_and_on_for_a_while_'
  const one = mcpToolName('server', `${prefix}one`)
  const two = mcpToolName('server', `${prefix}two`)
  assert.equal(one, mcpToolName('server', `${prefix}one`), 'same input, same name')
  assert.notEqual(one, two)
  assert.equal(one.slice(0, 55), two.slice(0, 55), 'the readable prefix is the same')
  // The hash is over the raw pair: names that sanitise alike still get different hashes past 64.
  assert.notEqual(mcpToolName('server', `${prefix}a-b`), mcpToolName('server', `${prefix}a.b`))
})

test('any server and tool name gives a valid, stable name (property)', () => {
  fc.assert(fc.property(fc.string({ maxLength: 80 }), fc.string({ minLength: 1, maxLength: 200 }), (server, tool) => {
    const name = mcpToolName(server || 's', tool)
    assert.match(name, VALID)
    assert.equal(name, mcpToolName(server || 's', tool))
  }), { numRuns: 500 })
})

test('raw names that sanitise to the same name are all refused; the others keep their names', () => {
  const { names, collisions } = assignToolNames('srv', ['get-file', 'get.file', 'get_file_x', 'list', 'list'])
  assert.deepEqual([...names], [['get_file_x', 'mcp__srv__get_file_x'], ['list', 'mcp__srv__list']])
  assert.deepEqual(collisions, [{ name: 'mcp__srv__get_file', raw: ['get-file', 'get.file'] }])
})

test('a three-way collision names all three', () => {
  const { names, collisions } = assignToolNames('srv', ['a b', 'a-b', 'a.b'])
  assert.equal(names.size, 0)
  assert.deepEqual(collisions[0].raw, ['a b', 'a-b', 'a.b'])
})

test('the toolset of server foo is mcp-foo', () => {
  assert.equal(mcpToolsetName('foo'), 'mcp-foo')
  assert.equal(mcpToolsetName('my-server'), 'mcp-my-server')
  assert.equal(mcpToolsetName('we ird'), 'mcp-we_ird')
})
