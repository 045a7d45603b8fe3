// Another tool gateway as the upstream whose tool asks its caller: gateway B has gateway A's /mcp as
// its upstream "a" (both real apps on loopback), and A's tool calls ctx.ask. Whatever way A puts the
// question in each revision (2025-11-25: elicitation/create on the call's stream; 2026-07-28:
// input_required, or, since B declares the Tasks extension A offers, a task waiting for input), it
// reaches the caller of B's call, and the answer comes back to A's tool. A caller of B that cannot
// be asked gets the error naming A's question.
import { describe, test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import type { InputRequests } from '../../src/registry/types.ts'
import { OPERATOR_KEY, startGatewayA, startGatewayB, type GatewayA, type RunningGateway } from '../mcp-server/helpers/gateways.ts'
import { fixtureTool } from '../helpers/tools.ts'
import { until } from './helpers/wait.ts'

const CONFIRM: InputRequests = {
  confirm: { method: 'elicitation/create', params: { message: 'Deploy to prod?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } }
}

function followedTask (b: RunningGateway): boolean {
  return b.log.lines().some((line) => line.msg === 'MCP server answered with a task: following it')
}

for (const revision of ['2025-11-25', '2026-07-28']) {
  describe(`in revision ${revision}`, () => {
    async function pair (t: TestContext, tool: Parameters<typeof fixtureTool>[1]): Promise<{ a: GatewayA, b: RunningGateway }> {
      const a = await startGatewayA(t)
      const b = await startGatewayB(t, a.current, OPERATOR_KEY, revision)
      a.current.app.gateway.registry.register(fixtureTool('deploy', tool))
      const connection = b.app.gateway.mcp.connection('a')
      await until(() => connection?.state === 'connected', 'B connected to A', 10_000)
      await until(() => b.app.gateway.registry.getEntry('mcp__a__deploy') !== undefined, 'mcp__a__deploy on B', 10_000)
      return { a, b }
    }

    const asking = { handler: async (_args: unknown, ctx: { ask?: (r: InputRequests) => Promise<Record<string, unknown>> }) => JSON.stringify(await ctx.ask!(CONFIRM)) }

    test('a question of A\'s tool reaches the caller of B\'s call, and the answer reaches A\'s tool', async (t) => {
      const { b } = await pair(t, asking)
      const asked: InputRequests[] = []
      const dispatched = await b.app.gateway.dispatcher.dispatch({
        name: 'mcp__a__deploy',
        args: {},
        ask: async (requests) => {
          asked.push(requests)
          return Object.fromEntries(Object.keys(requests).map((key) => [key, { action: 'accept', content: { ok: true } }]))
        }
      })
      assert.equal(dispatched.outcome.status, 'ok', dispatched.outcome.content)
      assert.equal(asked.length, 1)
      const [question] = Object.values(asked[0])
      assert.equal(question.method, 'elicitation/create')
      assert.equal(question.params?.message, 'Deploy to prod?')
      assert.deepEqual(Object.values(JSON.parse(dispatched.outcome.content) as object), [{ action: 'accept', content: { ok: true } }])
      // 2026-07-28: A answers B, which declares the extension A offers, with a task waiting for input.
      assert.equal(followedTask(b), revision === '2026-07-28')
    })

    test('a caller of B that cannot be asked gets the error naming A\'s question', async (t) => {
      const { b } = await pair(t, asking)
      const dispatched = await b.app.gateway.dispatcher.dispatch({ name: 'mcp__a__deploy', args: {} })
      assert.equal(dispatched.outcome.status, 'error')
      assert.match(dispatched.outcome.content, /cannot be asked/)
      assert.match(dispatched.outcome.content, /Deploy to prod\?/)
    })

    test('a call of A longer than its task threshold still ends with its result on B', async (t) => {
      const { b } = await pair(t, {
        handler: async (_args, ctx) => {
          ctx.reportProgress?.({ progress: 1, total: 2, message: 'half way' })
          await new Promise((resolve) => setTimeout(resolve, 2_500))
          return 'done after 2.5 s'
        }
      })
      const dispatched = await b.app.gateway.dispatcher.dispatch({ name: 'mcp__a__deploy', args: {} })
      assert.equal(dispatched.outcome.status, 'ok', dispatched.outcome.content)
      assert.equal(dispatched.outcome.content, 'done after 2.5 s')
      assert.equal(followedTask(b), revision === '2026-07-28')
    })
  })
}
