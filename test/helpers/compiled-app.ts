// What the image's /app holds, in a temp folder removed after the test: package.json ("type":
// "module"), node_modules (linked) and the compiled dist/ (no sources). Type checking is the type
// check's job; --noCheck emits what `npm run build` would, in seconds.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { cp, mkdtemp, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

interface TestContext { after: (fn: () => Promise<void> | void) => void }

/** The folder of a compiled copy of the gateway, named `prefix…` under the system's temp folder. */
export async function compiledApp (t: TestContext, prefix: string): Promise<string> {
  const app = await mkdtemp(join(tmpdir(), prefix))
  t.after(() => rm(app, { recursive: true, force: true }))
  await cp(join(ROOT, 'package.json'), join(app, 'package.json'))
  await symlink(join(ROOT, 'node_modules'), join(app, 'node_modules'), 'dir')
  const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', join(app, 'dist'), '--noCheck'],
    { cwd: ROOT, encoding: 'utf8' })
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr)
  return app
}
