// What the scenario groups of a trial share: the servers, started once each however many groups
// use them, and the probe that checks a server answers what the scenarios expect before the load.
import { startServer, stopServer, type Server } from './server-process.ts'

export const DEFINITION_TOOLS = 500

/** Response sizes worth keeping with the results (bytes), by what they are. */
export type Sizes = Record<string, number>

/** The trial's servers by name and arguments: a server two groups use is started once. */
export class TrialServers {
  readonly #started = new Map<string, Promise<Server>>()
  readonly scratch: string

  constructor (scratch: string) {
    this.scratch = scratch
  }

  async get (name: string, args: string[] = []): Promise<Server> {
    const key = [name, ...args].join('\n')
    let server = this.#started.get(key)
    if (server === undefined) {
      server = startServer(name, args)
      this.#started.set(key, server)
    }
    return await server
  }

  /** Stops every server that started (after a failed probe: none may be left behind). */
  async stopAll (): Promise<void> {
    for (const started of await Promise.allSettled(this.#started.values())) {
      if (started.status === 'fulfilled') await stopServer(started.value)
    }
  }

  async all (): Promise<Server[]> {
    return await Promise.all(this.#started.values())
  }
}

/** One request before the load, to fail loudly when a server does not answer what we think. */
export async function probe (url: string, init: RequestInit, expectedStatus: number): Promise<Response> {
  const response = await fetch(url, init)
  if (response.status !== expectedStatus) throw new Error(`${url}: expected ${expectedStatus}, got ${response.status}: ${await response.text()}`)
  return response
}
