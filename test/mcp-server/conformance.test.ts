// The official MCP conformance suite (@modelcontextprotocol/conformance, nobody here wrote it)
// against /mcp: every server scenario the gateway's features cover must pass. The tool scenarios
// call the suite's own tool names, registered here as ordinary gateway tools. Scenarios left out
// need what the gateway does not serve: resources, prompts, completion, logging, sampling,
// elicitation, image/audio results, the suite's reconnection tool.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { buildTestApp } from '../helpers/app.ts'
import { fixtureTool } from '../helpers/tools.ts'
import { toolError } from '../../src/registry/tool-result.ts'

const SUITE = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js')

const SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-error',
  'tools-call-with-progress',
  'server-sse-multiple-streams',
  'dns-rebinding-protection'
]

interface Check { id: string, status: string, errorMessage?: string }

async function runScenario (url: string, scenario: string): Promise<Check[]> {
  const out = await mkdtemp(join(tmpdir(), 'gw-conformance-'))
  try {
    await promisify(execFile)(process.execPath, [SUITE, 'server', '--url', url, '--scenario', scenario, '-o', out], { timeout: 60_000 })
      .catch(() => {}) // a failed scenario exits 1; its checks.json says which check failed and why
    const [folder] = await readdir(out)
    assert.ok(folder !== undefined, `${scenario}: the suite wrote no results`)
    return JSON.parse(await readFile(join(out, folder, 'checks.json'), 'utf8')) as Check[]
  } finally {
    await rm(out, { recursive: true, force: true })
  }
}

test('the MCP conformance suite passes every server scenario the gateway covers', async (t) => {
  const { app } = await buildTestApp(t)
  const { registry } = app.gateway
  registry.register(fixtureTool('test_simple_text', { handler: async () => 'This is a simple text response for testing.' }))
  registry.register(fixtureTool('test_error_handling', { handler: async () => toolError('This tool intentionally returns an error for testing') }))
  registry.register(fixtureTool('test_tool_with_progress', {
    handler: async (_args, ctx) => {
      for (const progress of [0, 50, 100]) {
        ctx.reportProgress?.({ progress, total: 100, message: `step ${progress}` })
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      return 'Progress complete'
    }
  }))
  const url = `${await app.listen({ host: '127.0.0.1', port: 0 })}/mcp`
  for (const scenario of SCENARIOS) {
    const checks = await runScenario(url, scenario)
    assert.ok(checks.length > 0, `${scenario}: no checks ran`)
    const failed = checks.filter((check) => check.status !== 'SUCCESS')
    assert.deepEqual(failed, [], `${scenario}: ${failed.map((check) => `${check.id}: ${check.errorMessage}`).join('; ')}`)
  }
})
