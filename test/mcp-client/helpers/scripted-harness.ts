// A harness around one scripted stdio server named `raw`, started and connected, stopped and
// removed after the test: the set-up the tests of odd tool lists and odd answers share.
import type { TestContext } from 'node:test'
import { rm } from 'node:fs/promises'
import type { McpConnection } from '../../../src/mcp-client/connection.ts'
import { createMcpHarness, type McpHarness } from './harness.ts'
import { writeScriptedServer } from './scripted-server.ts'
import { waitForState } from './wait.ts'

export async function connectScripted (t: TestContext, tools: unknown[]): Promise<{ h: McpHarness, connection: McpConnection }> {
  const scripted = await writeScriptedServer(tools)
  const h = await createMcpHarness({ raw: scripted.config }, { tuning: { pingIntervalMs: 0, backoffBaseMs: 20 } })
  t.after(async () => {
    await h.manager.stop()
    await rm(scripted.dir, { recursive: true, force: true })
  })
  h.manager.start()
  await h.manager.ready()
  const connection = h.manager.connection('raw')!
  await waitForState(connection, 'connected')
  return { h, connection }
}
