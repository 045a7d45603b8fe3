// Runs every test/**/*.test.ts with node:test under tsx. Node 20 cannot glob test paths itself and
// exits 0 when it finds nothing, so this script lists the files, refuses an empty list, and fails
// when the runner reports zero tests.
import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'

function findTests (dir) {
  const found = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) {
      if (entry.name !== 'fixtures' && entry.name !== 'node_modules') found.push(...findTests(path))
    } else if (entry.name.endsWith('.test.ts')) {
      found.push(path)
    }
  }
  return found.sort()
}

const only = process.argv.slice(2)
const files = only.length > 0 ? only : findTests('test')
if (files.length === 0) {
  console.error('run-tests: no test files found under test/')
  process.exit(1)
}

const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
  stdio: ['ignore', 'pipe', 'inherit']
})
let tail = ''
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk)
  tail = (tail + chunk.toString()).slice(-4096)
})
child.on('close', (code, signal) => {
  const match = /tests (\d+)/.exec(tail.split('\n').filter((l) => /^\S* ?tests \d+/.test(l.replace(/^ℹ /, ''))).pop() ?? '')
  const count = match ? Number(match[1]) : 0
  if (code === 0 && count === 0) {
    console.error('run-tests: the runner reported no tests')
    process.exit(1)
  }
  process.exit(code ?? (signal ? 1 : 0))
})
