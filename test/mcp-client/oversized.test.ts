// A stdio MCP server's answer over the size cap (the SDK's 10 MiB) fails that one call with a clear
// error; the connection stays up, so the server's other tools keep working. The SDK itself closed
// the transport on such a line, which killed the child and made every sibling tool 503.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/client'
import { connectScripted } from './helpers/scripted-harness.ts'

const OBJECT = { type: 'object', properties: {} }
const TOOLS = [
  { name: 'big', inputSchema: { type: 'object', properties: { bytes: { type: 'integer' } } } },
  { name: 'pid', inputSchema: OBJECT }
]

test('one result over the size cap fails only its call; the connection and the sibling tools stay up', async (t) => {
  const { h, connection } = await connectScripted(t, TOOLS)
  const states: string[] = []
  connection.on('state', (state) => states.push(state))
  const pid = connection.pid

  const small = await h.call('mcp__raw__big', { bytes: 1000 })
  assert.equal(small.status, 'ok')
  assert.equal(small.content.length, 1000)

  const huge = await h.call('mcp__raw__big', { bytes: STDIO_DEFAULT_MAX_BUFFER_SIZE + 1024 })
  assert.equal(huge.ok, false)
  assert.equal(huge.status, 'error', huge.content)
  assert.equal(huge.error?.code, 'GW_ERR_TOOL_FAILED')
  assert.match(huge.error?.message ?? '', /answer of \d+ bytes is over the 10485760-byte cap/)
  assert.ok(huge.content.length < 1000, 'the refused answer is not relayed')

  const sibling = await h.call('mcp__raw__pid', {})
  assert.equal(sibling.status, 'ok', sibling.content)
  assert.equal(sibling.content, String(pid), 'the same child answers: it was not restarted')
  assert.equal(connection.state, 'connected')
  assert.deepEqual(states, [], 'the connection never left "connected"')
  assert.ok(h.log.lines().some((line) => line.msg === 'MCP server answer over the size cap refused'), 'operators see it in the log')
})
