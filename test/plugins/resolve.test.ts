// Tests of the package "exports" reading the plugin resolver does itself (Node 20 cannot resolve a
// bare specifier for import from another folder): conditions, subpaths, patterns, exclusions; and
// the samples shipped with the gateway.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { tmpdir } from 'node:os'
import { fileURLToPath } from 'node:url'
import { resolveExports, resolvePluginModule } from '../../src/plugins/resolve.ts'

test('a string, an array or a conditions object stands for the root "."', () => {
  assert.equal(resolveExports('./main.js', '.'), './main.js')
  assert.equal(resolveExports(['./first.js', './second.js'], '.'), './first.js')
  assert.equal(resolveExports({ import: './esm.js', require: './cjs.cjs' }, '.'), './esm.js')
  assert.equal(resolveExports('./main.js', './sub'), undefined)
})

test('conditions are taken in the order the package lists them, among node, import, module-sync and default', () => {
  assert.equal(resolveExports({ '.': { require: './a.cjs', node: './node.js', import: './esm.js' } }, '.'), './node.js')
  assert.equal(resolveExports({ '.': { browser: './b.js', types: './t.d.ts', default: './d.js' } }, '.'), './d.js')
  assert.equal(resolveExports({ '.': { require: './a.cjs' } }, '.'), undefined)
  assert.equal(resolveExports({ '.': { node: { import: './deep.mjs', require: './deep.cjs' } } }, '.'), './deep.mjs')
  assert.equal(resolveExports({ '.': [{ require: './a.cjs' }, './fallback.js'] }, '.'), './fallback.js')
})

test('subpaths match exactly, then by the pattern with the longest prefix; null excludes', () => {
  const exports = {
    '.': './index.js',
    './feature': './lib/feature.js',
    './plugins/*': './lib/plugins/*.js',
    './plugins/special/*': './lib/special/*.mjs',
    './private/*': null
  }
  assert.equal(resolveExports(exports, './feature'), './lib/feature.js')
  assert.equal(resolveExports(exports, './plugins/audit'), './lib/plugins/audit.js')
  assert.equal(resolveExports(exports, './plugins/special/x'), './lib/special/x.mjs')
  assert.equal(resolveExports(exports, './private/secret'), undefined)
  assert.equal(resolveExports(exports, './missing'), undefined)
})

test('tool-gateway/plugins/<name> names a sample shipped beside the running code, wherever the config is', () => {
  const policy = resolvePluginModule('tool-gateway/plugins/policy', tmpdir())
  assert.equal(policy.name, 'policy')
  // From the sources here; from dist/plugins/policy.js when compiled (test/runtime/npm-start.test.ts).
  assert.equal(policy.file, fileURLToPath(new URL('../../plugins/policy.ts', import.meta.url)))
  assert.throws(() => resolvePluginModule('tool-gateway/plugins/nope', tmpdir()), /the gateway ships no plugin "nope"; it ships: policy/)
  // Only the names listed are reachable: no path out of the folder.
  assert.throws(() => resolvePluginModule('tool-gateway/plugins/../src/server', tmpdir()), /ships no plugin "\.\.\/src\/server"/)
})
