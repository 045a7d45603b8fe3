// Lint with neostandard (the style of fastify, undici and platformatic): two spaces, single quotes, no semicolons.
import neostandard from 'neostandard'

// The size rule: a file or function that grows past these is doing more than one thing, and is split
// before it lands. Tests are exempt: a long table of cases reads better whole.
const sizeRule = {
  files: ['src/**/*.ts', 'routes/**/*.ts', 'tools/**/*.ts', 'plugins/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.{ts,mjs}'],
  rules: {
    'max-lines': ['error', { max: 300 }],
    'max-lines-per-function': ['error', { max: 60 }]
  }
}

export default [
  ...neostandard({ ts: true, ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'openapi/**', 'workspace/**', 'test/fixtures/**/broken*'] }),
  sizeRule
]
