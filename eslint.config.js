// Lint with neostandard (the style of fastify, undici and platformatic): two spaces, single quotes, no semicolons.
import neostandard from 'neostandard'

export default [
  ...neostandard({ ts: true, ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'openapi/**', 'workspace/**', 'test/fixtures/**/broken*'] })
]
