// Start-up as users meet it: time from spawn to the first 200 of GET /readyz, and the RSS once the
// process settled after it, for the compiled entry with the built-in tools, the same with 1 000 more
// tools, and the `npm start` command (the README's first command). Kinds alternate start by start, so a
// change of load on the machine hits all of them; medians are reported.
import { setTimeout as sleep } from 'node:timers/promises'
import type { Fixtures } from './fixtures.ts'
import { startGateway, stopGateway, type GatewayOptions } from './gateway-process.ts'
import { rssBytes } from './proc.ts'
import { SETTLE_MS, STARTS } from './settings.ts'
import { median } from './stats.ts'

export interface StartupFigures { kind: string, command: string, readyMs: number[], rssBytes: number[], medianReadyMs: number, medianRssMB: number }

interface Kind { kind: string, command: string, options: Omit<GatewayOptions, 'label'> }

function kinds (fixtures: Fixtures, scratch: string): Kind[] {
  const workspace = fixtures.workspace
  return [
    { kind: 'builtins', command: 'node dist/src/server.js', options: { workspace, cwd: scratch } },
    { kind: '1000-tools', command: 'node dist/src/server.js, EXTRA_TOOLS_DIRS with 1 000 tools', options: { workspace, cwd: scratch, extraToolsDir: fixtures.manyTools } },
    { kind: 'npm-start', command: 'npm start (its script, run by sh as npm does)', options: { workspace, cwd: scratch, npmStart: true } }
  ]
}

export async function measureStartups (fixtures: Fixtures, scratch: string): Promise<StartupFigures[]> {
  const all = kinds(fixtures, scratch)
  const figures = all.map(({ kind, command }) => ({ kind, command, readyMs: [] as number[], rssBytes: [] as number[] }))
  for (let start = 0; start < STARTS; start++) {
    for (const [i, { kind, options }] of all.entries()) {
      process.stderr.write(`bench: start-up ${start + 1}/${STARTS}, ${kind}\n`)
      const gateway = await startGateway({ ...options, label: `startup-${kind}` })
      try {
        figures[i].readyMs.push(Math.round(gateway.readyMs))
        await sleep(SETTLE_MS)
        figures[i].rssBytes.push(await rssBytes(gateway.pid))
      } finally {
        await stopGateway(gateway)
      }
    }
  }
  return figures.map((figure) => ({
    ...figure,
    medianReadyMs: median(figure.readyMs),
    medianRssMB: Math.round(median(figure.rssBytes) / 2 ** 20)
  }))
}
