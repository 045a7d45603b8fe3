// What a probe reads while it attacks the gateway: the server's resident memory (sampled from /proc)
// and how long GET /healthz takes from a client that is not the attacker. A probe starts the compiled
// gateway as users run it (bench/gateway-process.ts), runs its attack, and prints the figures that
// bench/probes/*.md record before and after a fix. Loopback only, bounded in count and time.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { startGateway, stopGateway, type Gateway } from '../gateway-process.ts'
import { rssBytes } from '../proc.ts'

export interface ProbeFigures {
  rssBeforeMb: number
  rssPeakMb: number
  rssAfterMb: number
  healthzMaxMs: number
  healthzFailures: number
  attackMs: number
}

const MB = 1024 * 1024
const SAMPLE_MS = 20
const HEALTHZ_EVERY_MS = 50

/** Starts a gateway with `env`, runs `attack` against it while watching memory and /healthz, and stops it. */
export async function probe (label: string, env: Record<string, string>, attack: (gateway: Gateway) => Promise<void>): Promise<ProbeFigures> {
  const workspace = await mkdtemp(join(tmpdir(), `probe-${label}-`))
  const gateway = await startGateway({ label, workspace, cwd: workspace, env })
  try {
    await sleep(500)
    const rssBefore = await rssBytes(gateway.pid)
    let rssPeak = rssBefore
    let healthzMax = 0
    let healthzFailures = 0
    const state = { running: true }
    const sampler = (async () => {
      while (state.running) {
        rssPeak = Math.max(rssPeak, await rssBytes(gateway.pid).catch(() => 0))
        await sleep(SAMPLE_MS)
      }
    })()
    const watcher = (async () => {
      while (state.running) {
        const began = performance.now()
        try {
          const response = await fetch(`${gateway.url}/healthz`, { signal: AbortSignal.timeout(10_000) })
          await response.arrayBuffer()
          if (response.status !== 200) healthzFailures++
        } catch {
          healthzFailures++
        }
        healthzMax = Math.max(healthzMax, performance.now() - began)
        await sleep(HEALTHZ_EVERY_MS)
      }
    })()
    const began = performance.now()
    await attack(gateway)
    const attackMs = performance.now() - began
    await sleep(300)
    state.running = false
    await Promise.all([sampler, watcher])
    const rssAfter = await rssBytes(gateway.pid)
    return {
      rssBeforeMb: Math.round(rssBefore / MB),
      rssPeakMb: Math.round(rssPeak / MB),
      rssAfterMb: Math.round(rssAfter / MB),
      healthzMaxMs: Math.round(healthzMax),
      healthzFailures,
      attackMs: Math.round(attackMs)
    }
  } finally {
    await stopGateway(gateway)
    await rm(workspace, { recursive: true, force: true })
  }
}
