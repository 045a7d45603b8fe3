#!/usr/bin/env node
// The `tool-gateway` command of the package (`npx tool-gateway --stdio` from an install of it):
// the same entry point as `node src/server.ts`. Plain JavaScript that any Node can parse, so an
// older Node says which version is needed instead of failing on syntax or a missing API.
import { existsSync, readFileSync } from 'node:fs'

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
const required = /(\d+)\.(\d+)\.(\d+)/.exec(packageJson.engines.node).slice(1).map(Number)
const running = process.versions.node.split('.').map(Number)
const older = running.findIndex((part, i) => part !== required[i])
if (older !== -1 && running[older] < required[older]) {
  process.stderr.write(`tool-gateway: Node.js ${required.join('.')} or later is required; this is Node.js ${process.versions.node} (${process.execPath})\n`)
  process.exit(1)
}

// A checkout runs its TypeScript sources (Node strips the types); an installed package has only the
// compiled files, because Node strips no types under node_modules.
const sources = new URL('../src/server.ts', import.meta.url)
await import(existsSync(sources) ? sources.href : new URL('../dist/src/server.js', import.meta.url).href)
