// Lint with neostandard (the style of fastify, undici and platformatic): two spaces, single quotes, no semicolons.
import { createRequire } from 'node:module'
import neostandard from 'neostandard'

// The browser's globals from the `globals` package neostandard itself uses (not a dependency of ours).
const globals = createRequire(import.meta.resolve('neostandard'))('globals')

// The size rule: a file or function that grows past these is doing more than one thing, and is split
// before it lands. Tests are exempt: a long table of cases reads better whole.
const sizeRule = {
  files: ['src/**/*.ts', 'routes/**/*.ts', 'tools/**/*.ts', 'plugins/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.{ts,mjs}'],
  rules: {
    'max-lines': ['error', { max: 300 }],
    'max-lines-per-function': ['error', { max: 60 }]
  }
}

// The operator console runs in the browser as plain ES modules (no build): browser globals, not Node's.
const consoleRule = {
  files: ['console/**/*.js'],
  languageOptions: { sourceType: 'module', globals: { ...globals.browser } }
}

export default [
  ...neostandard({ ts: true, ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'openapi/**', 'workspace/**', 'test/fixtures/**/broken*'] }),
  sizeRule,
  consoleRule
]
