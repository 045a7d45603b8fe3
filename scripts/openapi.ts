// Generates openapi/openapi.json from the routes (`npm run openapi`). The app is built with a fixed
// config (no tools, no keys, silent logs) so the document depends on the code only, and the
// staleness test can regenerate it and compare.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import pino from 'pino'
import { buildApp } from '../src/app/app.ts'
import { loadConfig } from '../src/config/load.ts'

export const OPENAPI_PATH = fileURLToPath(new URL('../openapi/openapi.json', import.meta.url))

/** The OpenAPI document as the committed file holds it (JSON round trip: no undefined values). */
export async function generateOpenApiDocument (): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-openapi-'))
  try {
    // An explicit environment, not process.env: a key or GATEWAY_CONFIG on the machine must not
    // change the document (keys would add a global security requirement).
    const config = await loadConfig({ env: { TOOLS_DIR: dir, WORKSPACE_ROOT: dir, LOG_LEVEL: 'silent' }, cwd: dir })
    const app = await buildApp(config, { logger: pino({ level: 'silent' }), env: {} })
    try {
      await app.ready()
      return JSON.parse(JSON.stringify((await app.openapiDocument()).object)) as Record<string, unknown>
    } finally {
      await app.close()
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** The exact text written to openapi/openapi.json. */
export function formatOpenApiDocument (document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`
}

async function main (): Promise<void> {
  const document = await generateOpenApiDocument()
  await mkdir(dirname(OPENAPI_PATH), { recursive: true })
  await writeFile(OPENAPI_PATH, formatOpenApiDocument(document))
  process.stdout.write(`wrote ${OPENAPI_PATH}\n`)
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await main()
}
