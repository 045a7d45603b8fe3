// A round trip through two real gateways on loopback: gateway B has gateway A's /mcp as its
// upstream MCP server "a", so A's tools run when called on B as mcp__a__<tool>, over B's REST
// routes and B's own /mcp. What one gateway serves, the other must consume as it is: content,
// schemas, annotations, errors, key scope, live changes, cancellation and a restart of A. Every
// test runs twice: B and B's own MCP client pinned to 2025-11-25 (sessions), then to 2026-07-28.
import { describe, test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { FILES_KEY, OPERATOR_KEY, WRONG_KEY, startGatewayA, startGatewayB, type GatewayA, type RunningGateway } from './helpers/gateways.ts'
import { until } from '../mcp-client/helpers/wait.ts'
import { fixtureTool } from '../helpers/tools.ts'

const NOTES = 'first line of the notes\nsecond line\n'

interface Pair { a: GatewayA, b: RunningGateway }

const LEGACY = '2025-11-25'
const MODERN = '2026-07-28'

for (const revision of [LEGACY, MODERN]) {
  describe(`in revision ${revision}`, () => {
    /** A with a real file in its workspace, and B connected to it with `key`. */
    async function pair (t: TestContext, key = OPERATOR_KEY): Promise<Pair> {
      const a = await startGatewayA(t)
      await mkdir(join(a.workspace, 'docs'), { recursive: true })
      await writeFile(join(a.workspace, 'docs', 'notes.txt'), NOTES)
      const b = await startGatewayB(t, a.current, key, revision)
      return { a, b }
    }

    async function connected (b: RunningGateway): Promise<void> {
      const connection = b.app.gateway.mcp.connection('a')
      await until(() => connection?.state === 'connected', `B connected to A (it is ${connection?.state}: ${connection?.lastError})`)
    }

    async function dispatch (gateway: RunningGateway, tool: string, args: object, headers: Record<string, string> = {}) {
      const response = await fetch(`${gateway.base}/dispatch/${tool}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(args)
      })
      return { statusCode: response.status, body: await response.json() as { status: string, ok: boolean, content: string, error?: { message: string, code?: string } } }
    }

    async function mcpClient (t: TestContext, gateway: RunningGateway): Promise<Client> {
      const client = new Client({ name: 'round-trip', version: '1' }, { versionNegotiation: { mode: revision === MODERN ? { pin: MODERN } : 'legacy' } })
      await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.base}/mcp`)))
      t.after(() => client.close())
      return client
    }

    async function getJson (gateway: RunningGateway, path: string, key?: string): Promise<any> {
      const response = await fetch(`${gateway.base}${path}`, { headers: key === undefined ? {} : { authorization: `Bearer ${key}` } })
      assert.equal(response.status, 200, `GET ${path}: ${response.status}`)
      return await response.json()
    }

    const textOf = (result: { content: unknown }): string => (result.content as Array<{ text: string }>).map((block) => block.text).join('')

    test('mcp__a__read_file on B reads the file in A\'s workspace, over B\'s REST route and B\'s /mcp', async (t) => {
      const { b } = await pair(t)
      await connected(b)
      const rest = await dispatch(b, 'mcp__a__read_file', { path: 'docs/notes.txt' })
      assert.equal(rest.statusCode, 200)
      assert.equal(rest.body.status, 'ok', JSON.stringify(rest.body))
      assert.match(rest.body.content, /1\|first line of the notes/)
      assert.match(rest.body.content, /2\|second line/)

      const client = await mcpClient(t, b)
      const result = await client.callTool({ name: 'mcp__a__read_file', arguments: { path: 'docs/notes.txt' } })
      assert.equal(result.isError, false)
      assert.equal(textOf(result), rest.body.content, 'the same content whichever way B is asked')
    })

    test('B lists A\'s tools with A\'s schemas, and A\'s annotations reach B\'s /tools and B\'s /mcp', async (t) => {
      const { a, b } = await pair(t)
      await connected(b)
      const fromA = await getJson(a.current, '/definitions', OPERATOR_KEY)
      const fromB = await getJson(b, '/definitions')
      const functionOf = (definitions: any, name: string) => definitions.find((tool: any) => tool.function.name === name)?.function
      const schemaOf = (definitions: any, name: string) => functionOf(definitions, name)?.parameters
      for (const tool of ['read_file', 'write_file', 'search_files', 'patch']) {
        assert.deepEqual(schemaOf(fromB, `mcp__a__${tool}`), schemaOf(fromA, tool), `${tool}: the schema B serves is A's`)
      }
      // A model reads no annotations: B puts A's title before A's description (describe-tool.ts).
      assert.equal(functionOf(fromB, 'mcp__a__read_file').description, `Read file: ${functionOf(fromA, 'read_file').description}`)

      const tools = await getJson(b, '/tools')
      const readFile = tools.tools.find((tool: any) => tool.name === 'mcp__a__read_file')
      assert.deepEqual(readFile.annotations, { title: 'Read file', readOnly: true, openWorld: false })
      assert.deepEqual(readFile.origin, { kind: 'mcp', server: 'a' })
      const writeFileTool = tools.tools.find((tool: any) => tool.name === 'mcp__a__write_file')
      assert.equal(writeFileTool.annotations.destructive, true)

      const client = await mcpClient(t, b)
      const listed = await client.listTools()
      const overMcp = listed.tools.find((tool) => tool.name === 'mcp__a__read_file')
      assert.deepEqual(overMcp?.annotations, { title: 'Read file', readOnlyHint: true, openWorldHint: false })
      assert.deepEqual(overMcp?.inputSchema, schemaOf(fromA, 'read_file'))
    })

    test('a tool error on A arrives on B as a failed call with A\'s message, over REST and /mcp', async (t) => {
      const { a, b } = await pair(t)
      await connected(b)
      const missingOnA = await dispatch(a.current, 'read_file', { path: 'docs/missing.txt' }, { authorization: `Bearer ${OPERATOR_KEY}` })
      assert.equal(missingOnA.body.ok, false)
      const missing = await dispatch(b, 'mcp__a__read_file', { path: 'docs/missing.txt' })
      assert.equal(missing.statusCode, 200)
      assert.equal(missing.body.status, 'error', JSON.stringify(missing.body))
      assert.equal(missing.body.error?.message, missingOnA.body.error?.message, 'A\'s own words reach B')
      assert.equal(missing.body.content, missingOnA.body.content, 'A\'s error object as it is, not wrapped in another')

      const escapeOnA = await dispatch(a.current, 'read_file', { path: '../../etc/passwd' }, { authorization: `Bearer ${OPERATOR_KEY}` })
      const escape = await dispatch(b, 'mcp__a__read_file', { path: '../../etc/passwd' })
      assert.equal(escape.body.status, 'error')
      assert.equal(escape.body.error?.message, escapeOnA.body.error?.message)
      assert.doesNotMatch(escape.body.content, /root:/, 'nothing outside A\'s workspace was read')

      const client = await mcpClient(t, b)
      const overMcp = await client.callTool({ name: 'mcp__a__read_file', arguments: { path: 'docs/missing.txt' } })
      assert.equal(overMcp.isError, true)
      assert.equal(textOf(overMcp), missingOnA.body.content)
      // B is still fine after the errors.
      assert.equal((await dispatch(b, 'mcp__a__read_file', { path: 'docs/notes.txt' })).body.status, 'ok')
    })

    test('a key of A limited to the file toolset limits what B sees through it', async (t) => {
      const { a, b } = await pair(t, FILES_KEY)
      a.current.app.gateway.registry.register(fixtureTool('echo'))
      await connected(b)
      const names = (await getJson(b, '/definitions')).map((tool: any) => tool.function.name).sort()
      assert.deepEqual(names, ['mcp__a__patch', 'mcp__a__read_file', 'mcp__a__search_files', 'mcp__a__write_file'])
      const echo = await dispatch(b, 'mcp__a__echo', { text: 'hi' })
      assert.equal(echo.body.status, 'not_found', 'a tool outside the key\'s toolsets is not B\'s either')
    })

    test('a wrong key makes B\'s /tools report the upstream as failing, with a reason naming the refusal', async (t) => {
      const { b } = await pair(t, WRONG_KEY)
      const connection = b.app.gateway.mcp.connection('a')
      await until(() => connection?.lastError !== undefined, 'B\'s first attempt to fail')
      const tools = await getJson(b, '/tools')
      const server = tools.mcpServers.find((s: any) => s.server === 'a')
      assert.notEqual(server.state, 'connected')
      assert.match(server.lastError, /401/, server.lastError)
      assert.match(server.lastError, /a valid API key is required/, 'A\'s own reason reaches B\'s operator')
      assert.equal(tools.tools.length, 0)
    })

    test('a tool registered on A at runtime reaches B through tools/list_changed', async (t) => {
      const { a, b } = await pair(t)
      await connected(b)
      // A call first: B's session with A is in use, its notification stream open or opening.
      assert.equal((await dispatch(b, 'mcp__a__read_file', { path: 'docs/notes.txt' })).body.status, 'ok')
      a.current.app.gateway.registry.register(fixtureTool('late', { annotations: { readOnly: true } }))
      await until(() => b.app.gateway.registry.getEntry('mcp__a__late') !== undefined, 'mcp__a__late on B', 10_000)
      const late = await dispatch(b, 'mcp__a__late', { text: 'hello' })
      assert.equal(late.body.content, '{"echoed":"hello"}')
      assert.deepEqual(b.app.gateway.registry.getEntry('mcp__a__late')?.annotations, { readOnly: true })
    })

    test('a call on B past its deadline aborts the handler on A (notifications/cancelled, or the stream closed)', async (t) => {
      const { a, b } = await pair(t)
      const aborted = Promise.withResolvers<unknown>()
      const started = Promise.withResolvers<void>()
      a.current.app.gateway.registry.register(fixtureTool('slow', {
        // Settles only when aborted: A's own deadline (60 s) is far beyond this test's bound.
        handler: async (_args, ctx) => await new Promise<string>((resolve) => {
          started.resolve()
          ctx.signal.addEventListener('abort', () => { aborted.resolve(ctx.signal.reason); resolve('aborted') }, { once: true })
        })
      }))
      await connected(b)
      await until(() => b.app.gateway.registry.getEntry('mcp__a__slow') !== undefined, 'mcp__a__slow on B', 10_000)
      const began = Date.now()
      const call = await dispatch(b, 'mcp__a__slow', {}, { 'x-tool-timeout-ms': '300' })
      assert.equal(call.body.status, 'timeout', JSON.stringify(call.body))
      await started.promise
      const reason = await Promise.race([aborted.promise, new Promise((resolve) => setTimeout(resolve, 5_000, 'never'))])
      assert.notEqual(reason, 'never', 'A\'s handler saw no abort within 5 s of B\'s deadline')
      // 2025: B's own words, which travel only in notifications/cancelled. 2026-07-28 cancels by
      // closing the request's stream: A sees its client go.
      assert.match(String(reason), revision === LEGACY ? /Tool mcp__a__slow timed out after 300 ms/ : /the client closed the connection/)
      assert.ok(Date.now() - began < 5_000)
    })

    test('A restarted on the same port: the next call on B works (2025: sent again on a new session)', async (t) => {
      const { a, b } = await pair(t)
      await connected(b)
      assert.equal((await dispatch(b, 'mcp__a__read_file', { path: 'docs/notes.txt' })).body.status, 'ok')
      await a.restart()
      // 2025, at once, before B can notice by itself: A refuses B's old session (404), the call never
      // ran there, so B opens a new session and sends the call again. 2026-07-28: there is no session
      // to lose, but B's listen stream saw A go and B reconnects (calls fail fast meanwhile, by
      // design): once it is back, the new A answers as the old one did.
      if (revision === MODERN) await connected(b)
      const first = await dispatch(b, 'mcp__a__read_file', { path: 'docs/notes.txt' })
      assert.equal(first.body.status, 'ok', JSON.stringify(first.body))
      assert.match(first.body.content, /1\|first line of the notes/)
      const opened = a.current.log.lines().filter((line) => line.msg === 'MCP session opened')
      assert.equal(opened.length, revision === LEGACY ? 1 : 0, 'B opened one new session on the new A (2025 only)')
    })

    test('A restarted: B notices by itself (its notification stream broke) and listens to the new A before any call', async (t) => {
      const { a, b } = await pair(t)
      await connected(b)
      await a.restart()
      // No call on B, and its health check comes every 30 s, past the bound: only the end of B's
      // stream from A (2025: the session's GET stream; 2026-07-28: subscriptions/listen) tells it.
      if (revision === LEGACY) {
        let opened = false
        a.current.log.waitFor((line) => line.msg === 'MCP session opened').then(() => { opened = true }, () => {})
        await until(() => opened, 'B to open a session on the new A', 10_000)
      }
      const connection = b.app.gateway.mcp.connection('a')
      await until(() => connection?.state === 'connected', 'B connected to the new A', 10_000)
      // B hears the new A's changes: its stream to the new A is open.
      a.current.app.gateway.registry.register(fixtureTool('after_restart'))
      await until(() => b.app.gateway.registry.getEntry('mcp__a__after_restart') !== undefined, 'mcp__a__after_restart on B', 10_000)
      const first = await dispatch(b, 'mcp__a__read_file', { path: 'docs/notes.txt' })
      assert.equal(first.body.status, 'ok', JSON.stringify(first.body))
    })

    test('A stopped: B\'s /tools shows the upstream down with the reason within seconds, no call needed', async (t) => {
      const { a, b } = await pair(t)
      await connected(b)
      await a.current.app.close()
      const connection = b.app.gateway.mcp.connection('a')
      await until(() => connection?.state !== 'connected', 'B to notice A is gone', 10_000)
      const server = (await getJson(b, '/tools')).mcpServers.find((s: any) => s.server === 'a')
      assert.notEqual(server.state, 'connected')
      // fetch says only "fetch failed"; its cause says what: A refuses connections.
      assert.match(server.lastError, /ECONNREFUSED 127\.0\.0\.1:\d+/, server.lastError)
      const call = await dispatch(b, 'mcp__a__read_file', { path: 'docs/notes.txt' })
      assert.equal(call.body.status, 'unavailable')
      assert.match(call.body.error!.message, /MCP server "a" is (reconnecting|circuit open)/)
    })

    test('through B\'s /mcp: A\'s progress reaches B\'s client, and the client\'s cancellation reaches A\'s handler', async (t) => {
      const { a, b } = await pair(t)
      const aborted = Promise.withResolvers<unknown>()
      a.current.app.gateway.registry.register(fixtureTool('steps', {
        handler: async (_args, ctx) => await new Promise<string>((resolve) => {
          ctx.reportProgress?.({ progress: 1, total: 2, message: 'half way on A' })
          ctx.signal.addEventListener('abort', () => { aborted.resolve(ctx.signal.reason); resolve('aborted') }, { once: true })
        })
      }))
      await connected(b)
      await until(() => b.app.gateway.registry.getEntry('mcp__a__steps') !== undefined, 'mcp__a__steps on B', 10_000)
      const client = await mcpClient(t, b)
      const controller = new AbortController()
      const progress: unknown[] = []
      const call = client.callTool({ name: 'mcp__a__steps', arguments: {} }, {
        signal: controller.signal,
        onprogress: (update) => { progress.push(update); controller.abort(new Error('the client had enough')) }
      })
      const bound = setTimeout(() => { controller.abort(new Error('no progress within 5 s')) }, 5_000)
      t.after(() => clearTimeout(bound))
      await assert.rejects(call)
      assert.deepEqual(progress, [{ progress: 1, total: 2, message: 'half way on A' }], 'A\'s report, forwarded by B')
      const reason = await Promise.race([aborted.promise, new Promise((resolve) => setTimeout(resolve, 5_000, 'never'))])
      // 2025: the client's reason, carried by B's notifications/cancelled to A; 2026-07-28: each hop
      // cancels by closing its request's stream, which carries no words.
      assert.match(String(reason), revision === LEGACY ? /the client had enough/ : /the client closed the connection/)
    })

    test('B asks A for progress only when its own caller listens', async (t) => {
      const { a, b } = await pair(t)
      a.current.app.gateway.registry.register(fixtureTool('wants', { handler: async (_args, ctx) => JSON.stringify({ wanted: ctx.progressWanted }) }))
      await connected(b)
      await until(() => b.app.gateway.registry.getEntry('mcp__a__wants') !== undefined, 'mcp__a__wants on B', 10_000)
      // In 2026-07-28 B declares the Tasks extension to A, which offers it: a call that may become a
      // task wants its tool's progress whoever calls (it is the task's statusMessage).
      const quiet = JSON.stringify({ wanted: revision === MODERN })
      assert.equal((await dispatch(b, 'mcp__a__wants', {})).body.content, quiet, 'a REST caller gives no progress token')
      const client = await mcpClient(t, b)
      assert.equal(textOf(await client.callTool({ name: 'mcp__a__wants', arguments: {} })), quiet)
      assert.equal(textOf(await client.callTool({ name: 'mcp__a__wants', arguments: {} }, { onprogress: () => {} })), '{"wanted":true}')
    })
  })
}
