// The MCP client side fails with the project's named errors (a code, the server where it has one),
// never a plain Error that callers and logs could only tell apart by its words.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SdkError, SdkErrorCode, type Client } from '@modelcontextprotocol/client'
import { McpInvalidAnswerError, McpSdkMismatchError, McpStartFailedError } from '../../src/shared/errors.ts'
import { useBoundedReader } from '../../src/mcp-client/bounded-read-buffer.ts'
import { REAL_CLOCK } from '../../src/mcp-client/clock.ts'
import { McpLink } from '../../src/mcp-client/link.ts'
import { StderrLog } from '../../src/mcp-client/stdio-child.ts'
import { listAllTools } from '../../src/mcp-client/tool-list.ts'
import type { McpServerConfig } from '../../src/config/schema.ts'
import { captureLogger } from '../helpers/logger.ts'

test('a stdio transport without the reader field the gateway replaces: McpSdkMismatchError', () => {
  assert.throws(() => { useBoundedReader({}, 1024, () => {}) }, (err: unknown) => err instanceof McpSdkMismatchError && err.code === 'GW_ERR_MCP_SDK_MISMATCH')
})

test('a server that cannot start in its cwd: McpStartFailedError naming the server', async () => {
  const logger = captureLogger('silent').logger
  const missing = join(tmpdir(), `gw-no-such-folder-${process.pid}`)
  const link = new McpLink({
    server: 'here',
    config: { command: process.execPath, cwd: missing } as McpServerConfig,
    logger,
    stderrLog: new StderrLog({ logger, now: () => 0, linesPerWindow: 1, windowMs: 1 }),
    tuning: { killGraceMs: 100, pingIntervalMs: 0, pingTimeoutMs: 100, maxMessageBytes: 1024, listenRetryBaseMs: 1000 },
    clock: REAL_CLOCK,
    onLost: () => {},
    onToolsChanged: () => {}
  })
  try {
    await assert.rejects(link.connect(1_000), (err: unknown) => err instanceof McpStartFailedError && err.server === 'here' && /does not exist/.test(err.message))
  } finally {
    await link.terminate(false)
  }
})

test('a tools/list whose pages never end: McpInvalidAnswerError', async () => {
  let page = 0
  // The SDK's own walk refuses the list (a tool without a schema), so the lenient reader pages on.
  const client = {
    listTools: () => Promise.reject(new SdkError(SdkErrorCode.InvalidResult, 'bad tool')),
    request: () => Promise.resolve({ tools: [{ name: `t${page}` }], nextCursor: `c${++page}` })
  } as unknown as Client
  await assert.rejects(listAllTools(client, {}), (err: unknown) => err instanceof McpInvalidAnswerError && /did not end after 64 pages/.test(err.message))
})
