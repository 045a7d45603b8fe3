// Probe of issue 25 item 4: what an MCP server over Streamable HTTP can do to the gateway with its
// answers. A raw upstream on 127.0.0.1 (raw-mcp-upstream.ts) answers tools/call with (a) a 300 MB
// JSON body, (b) a gzip bomb (Content-Encoding: gzip, 1.6 MB on the wire, 1.5 GiB decoded), (b2) the
// same bomb gzipped once more (Content-Encoding: gzip, gzip: 4 KB on the wire), (c) 20 000 progress
// notifications on the call's SSE stream before its answer. (a) and (b) are called over REST
// (POST /dispatch/mcp__up__<tool>), (c) by an MCP client of the gateway's /mcp that listens to
// progress. Measured: the gateway's RSS (from /proc, every 20 ms), GET /healthz (every 50 ms, on a
// new connection), what the caller got and when, what the upstream wrote, whether a sibling tool of
// the same server still answers afterwards and the server's state in GET /tools. A call waits 90 s
// at most. Run: PROBE_ROOT=<checkout> node bench/probes/upstream-answers.ts   (PROBE_PARTS=a,b,b2,c)
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { setTimeout as sleep } from 'node:timers/promises'
import { rssBytes } from '../proc.ts'
import { RawMcpUpstream } from './raw-mcp-upstream.ts'
import { logCounts, oneShot, PROBE_ROOT, startRooted, stopRooted, watch, type Rooted } from './rooted.ts'

const PARTS = (process.env.PROBE_PARTS ?? 'a,b,b2,c').split(',')
/** The notifications of (c); a handful (PROBE_PROGRESS_REPORTS=10) shows what reaches a client past the burst of 8. */
const PROGRESS_REPORTS = Number(process.env.PROBE_PROGRESS_REPORTS ?? 20_000)
const CALL_TIMEOUT_MS = 90_000
const MB = 1024 * 1024
const JSON_HEADERS = { 'content-type': 'application/json' }

/** The log lines counted since `before` was taken (logCounts() covers every gateway of the run). */
function logsSince (before: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(logCounts()).map(([line, n]) => [line, n - (before[line] ?? 0)]).filter(([, n]) => (n as number) > 0))
}

/** The upstream's entry of GET /tools, once it is connected with its tools (10 s at most). */
async function serverState (gateway: Rooted, waitForTools: boolean): Promise<{ state?: string, tools?: number, lastError?: string | null }> {
  const deadline = performance.now() + 10_000
  for (;;) {
    const answer = await oneShot(gateway.port, 'GET', '/tools', { timeoutMs: 5000 })
    const state = answer instanceof Error ? undefined : (JSON.parse(answer.body) as { mcpServers?: Array<{ state: string, tools: number, lastError: string | null }> }).mcpServers?.[0]
    if (!waitForTools || (state?.state === 'connected' && state.tools >= 5) || performance.now() > deadline) return state ?? {}
    await sleep(100)
  }
}

/** What a REST answer says, cut short for the report. */
function gist (answer: Awaited<ReturnType<typeof oneShot>>): Record<string, unknown> {
  if (answer instanceof Error) return { error: answer.message }
  return { status: answer.status, ms: Math.round(answer.ms), bodyChars: answer.body.length, body: answer.body.slice(0, 400) }
}

async function withUpstream (part: string, run: (gateway: Rooted, upstream: RawMcpUpstream) => Promise<Record<string, unknown>>): Promise<void> {
  const upstream = new RawMcpUpstream(PROGRESS_REPORTS)
  await upstream.start()
  const logs = logCounts()
  const gateway = await startRooted(`upstream-${part}`, { configYaml: `mcpServers:\n  up:\n    url: ${upstream.url}\n` })
  try {
    const connected = await serverState(gateway, true)
    const report = await run(gateway, upstream)
    await sleep(1000)
    const rssAfterMb = Math.round(await rssBytes(gateway.pid) / MB)
    const sibling = await oneShot(gateway.port, 'POST', '/dispatch/mcp__up__echo', { headers: JSON_HEADERS, body: '{}', timeoutMs: 10_000 })
    console.log(JSON.stringify({
      probe: 'upstream-answers',
      part,
      root: PROBE_ROOT,
      connectedBefore: connected,
      ...report,
      rssAfterMb,
      upstreamWrote: upstream.written,
      siblingEchoAfter: gist(sibling),
      serverAfter: await serverState(gateway, false),
      logs: logsSince(logs)
    }))
  } finally {
    await stopRooted(gateway)
    await upstream.close()
  }
}

/** (a), (b), (b2): one REST call of `tool`. */
async function restPart (part: string, tool: string): Promise<void> {
  await withUpstream(part, async (gateway) => {
    let answer: Awaited<ReturnType<typeof oneShot>> = new Error('not called')
    const figures = await watch(gateway, async () => {
      answer = await oneShot(gateway.port, 'POST', `/dispatch/mcp__up__${tool}`, { headers: JSON_HEADERS, body: '{}', timeoutMs: CALL_TIMEOUT_MS })
    })
    return { tool, caller: gist(answer), ...figures }
  })
}

/** (c): an MCP client of /mcp calls the flooding tool with a progress handler. */
async function progressPart (): Promise<void> {
  await withUpstream('c', async (gateway) => {
    const received: number[] = []
    let outcome: Record<string, unknown> = {}
    const figures = await watch(gateway, async () => {
      const client = new Client({ name: 'upstream-answers-probe', version: '1.0.0' })
      await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)))
      const began = performance.now()
      try {
        const result = await client.callTool({ name: 'mcp__up__progress_flood', arguments: {} }, {
          onprogress: (update) => { received.push(update.progress) },
          timeout: CALL_TIMEOUT_MS,
          maxTotalTimeout: CALL_TIMEOUT_MS
        })
        outcome = { isError: result.isError ?? false, text: JSON.stringify(result.content).slice(0, 300) }
      } catch (err) {
        outcome = { error: (err as Error).message.slice(0, 300) }
      }
      outcome.ms = Math.round(performance.now() - began)
      await client.close()
    })
    return {
      tool: 'progress_flood',
      progressReports: PROGRESS_REPORTS,
      caller: outcome,
      progressReceived: received.length,
      progressFirstLast: [received[0], received.at(-1)],
      progressInOrder: received.every((value, i) => i === 0 || value > received[i - 1]),
      ...figures
    }
  })
}

if (PARTS.includes('a')) await restPart('a', 'big_json')
if (PARTS.includes('b')) await restPart('b', 'gzip_bomb')
if (PARTS.includes('b2')) await restPart('b2', 'gzip_gzip_bomb')
if (PARTS.includes('c')) await progressPart()
