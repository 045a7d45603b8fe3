// A manual check of the image's MCP stdio mode (docs/operations.md, "Running in a container"), not part of
// `npm test`: it needs a built image and a container runtime, which CI does not guarantee.
//   node scripts/check-stdio-container.mjs                      # docker, image `tool-gateway`
//   node scripts/check-stdio-container.mjs podman run -i --rm --init --no-healthcheck \
//     -v {workspace}:/workspace tool-gateway node dist/src/server.js --stdio
// Any command works; `{workspace}` is replaced by a temp folder holding `note.txt`. Over the
// command's stdin/stdout it runs initialize, tools/list (read_file with readOnlyHint) and a
// read_file of note.txt, tries a write_file, then closes stdin and expects exit code 0; every line
// on stdout must be JSON-RPC. Plain JavaScript with no dependency, like smoke-prod.mjs.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

const DEFAULT_COMMAND = ['docker', 'run', '-i', '--rm', '--init', '--no-healthcheck', '-v', '{workspace}:/workspace',
  'tool-gateway', 'node', 'dist/src/server.js', '--stdio']
const ANSWER_TIMEOUT_MS = 60_000
const EXIT_TIMEOUT_MS = 15_000
const NOTE = 'written on the host, read in the container'
const started = Date.now()

class CheckError extends Error {}

function step (message) {
  process.stdout.write(`check-stdio [${((Date.now() - started) / 1000).toFixed(1)}s] ${message}\n`)
}

function check (condition, message) {
  if (!condition) throw new CheckError(message)
}

/** A folder the container's user (uid 1000, or whoever the command says) can at least read. */
async function makeWorkspace () {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-stdio-'))
  await writeFile(join(dir, 'note.txt'), `${NOTE}\n`)
  // mkdtemp makes the folder 0700: nobody but its owner could read it through the bind mount.
  await chmod(dir, 0o755)
  await chmod(join(dir, 'note.txt'), 0o644)
  return dir
}

/** Starts the command; `request` sends one JSON-RPC request and resolves with its answer. */
function startGateway (argv) {
  const child = spawn(argv[0], argv.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] })
  // A command that dies early breaks the pipe: its exit code is what gets reported, not EPIPE.
  child.stdin.on('error', () => {})
  const pending = new Map()
  const notJsonRpc = []
  let nextId = 1
  createInterface({ input: child.stdout }).on('line', (line) => {
    let message
    try { message = JSON.parse(line) } catch { message = undefined }
    if (message?.jsonrpc !== '2.0') return notJsonRpc.push(line)
    pending.get(message.id)?.(message)
    pending.delete(message.id)
  })
  const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`)
  const request = (method, params) => new Promise((resolve, reject) => {
    const id = nextId++
    const timer = setTimeout(() => reject(new CheckError(`no answer to ${method} within ${ANSWER_TIMEOUT_MS} ms`)), ANSWER_TIMEOUT_MS)
    pending.set(id, (message) => { clearTimeout(timer); resolve(message) })
    send({ id, method, params })
  })
  return { child, send, request, notJsonRpc }
}

async function listAllTools (gateway) {
  const tools = []
  let cursor
  do {
    const answer = await gateway.request('tools/list', cursor ? { cursor } : {})
    check(answer.result, `tools/list failed: ${JSON.stringify(answer.error)}`)
    tools.push(...answer.result.tools)
    cursor = answer.result.nextCursor
  } while (cursor)
  return tools
}

async function converse (gateway, workspace) {
  const init = await gateway.request('initialize', {
    protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'check-stdio-container', version: '1' }
  })
  check(init.result?.serverInfo, `initialize failed: ${JSON.stringify(init.error ?? init)}`)
  step(`initialize: ${init.result.serverInfo.name} ${init.result.serverInfo.version}, protocol ${init.result.protocolVersion}`)
  gateway.send({ method: 'notifications/initialized' })

  const tools = await listAllTools(gateway)
  const readFile = tools.find((tool) => tool.name === 'read_file')
  check(readFile, `tools/list has no read_file (got ${tools.map((tool) => tool.name).join(', ')})`)
  check(readFile.annotations?.readOnlyHint === true, `read_file lacks readOnlyHint: ${JSON.stringify(readFile.annotations)}`)
  step(`tools/list: ${tools.map((tool) => tool.name).join(', ')}; read_file readOnlyHint true`)

  const read = await gateway.request('tools/call', { name: 'read_file', arguments: { path: 'note.txt' } })
  const text = read.result?.content?.[0]?.text ?? ''
  check(read.result?.isError === false && text.includes(NOTE), `read_file of the mounted note.txt failed: ${JSON.stringify(read)}`)
  step('tools/call read_file: the mounted note.txt read back')

  // Not a failure: whether the container's user may write a bind mount depends on who owns it.
  const write = await gateway.request('tools/call', { name: 'write_file', arguments: { path: 'written.txt', content: 'x' } })
  const owner = (await stat(workspace)).uid
  step(write.result?.isError === false
    ? 'tools/call write_file: the workspace is writable'
    : `note: write_file failed (${write.result?.content?.[0]?.text ?? JSON.stringify(write)}); the folder belongs to uid ${owner} and the image runs as uid 1000: see docs/operations.md, "Running in a container"`)
}

async function main () {
  const workspace = await makeWorkspace()
  const argv = (process.argv.length > 2 ? process.argv.slice(2) : DEFAULT_COMMAND)
    .map((arg) => arg.replaceAll('{workspace}', workspace))
  step(`$ ${argv.join(' ')}`)
  const gateway = startGateway(argv)
  const exited = once(gateway.child, 'close')
  gateway.child.on('error', (error) => { step(`cannot start ${argv[0]}: ${error.message}`); process.exit(1) })
  try {
    await Promise.race([converse(gateway, workspace), exited.then(([code]) => { throw new CheckError(`the command ended early (exit ${code})`) })])
    gateway.child.stdin.end()
    const closedAt = Date.now()
    const timer = setTimeout(() => gateway.child.kill('SIGKILL'), EXIT_TIMEOUT_MS)
    const [code, signal] = await exited
    clearTimeout(timer)
    check(code === 0, `after stdin closed the command ended with ${code ?? signal}, not exit code 0`)
    step(`stdin closed: exit code 0 after ${Date.now() - closedAt} ms`)
    check(gateway.notJsonRpc.length === 0, `stdout carried lines that are not JSON-RPC: ${gateway.notJsonRpc.slice(0, 3).join(' | ')}`)
    step('stdout carried JSON-RPC only: all checks passed')
  } finally {
    gateway.child.kill()
    await rm(workspace, { recursive: true, force: true }).catch(() => {})
  }
}

main().catch((error) => {
  step(error instanceof CheckError ? `FAILED: ${error.message}` : `FAILED: ${error.stack}`)
  process.exitCode = 1
})
