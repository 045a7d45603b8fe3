// Which candidate tool modules register at their top level, decided in a child process. Parsing
// every module into a syntax tree costs the process that does it about 17 MB it never gives back
// (the parser's native code and the heap its trees grew), for an answer needed once at start: a
// short-lived child takes that cost with it when it exits. Where a child cannot be started, the
// analysis runs here instead. This file is also the child's entry point.
import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { messageOf } from '../shared/objects.ts'

/** One module's verdict: registers or not, its parse errors, or why it could not be read. */
export type ModuleVerdict =
  | { file: string, registers: boolean, parseErrors: string[] }
  | { file: string, readError: string }

// The child runs this very file: the .ts from the sources (Node strips the types), the .js compiled.
const SELF = fileURLToPath(import.meta.url)
/** Far longer than parsing any real set of modules takes; a child stuck past it is killed. */
const CHILD_TIMEOUT_MS = 60_000

/** Reads and analyses each file, here, in order. */
export async function analyseHere (files: readonly string[]): Promise<ModuleVerdict[]> {
  const { registersAtTopLevel } = await import('./top-level-register.ts')
  const verdicts: ModuleVerdict[] = []
  for (const file of files) {
    let source: string
    try {
      source = await readFile(file, 'utf8')
    } catch (err) {
      verdicts.push({ file, readError: messageOf(err) })
      continue
    }
    verdicts.push({ file, ...registersAtTopLevel(file, source) })
  }
  return verdicts
}

/** The same verdicts from a child process; rejects when the child cannot run or answer. */
export function analyseInChild (files: readonly string[]): Promise<ModuleVerdict[]> {
  return new Promise((resolve, reject) => {
    // No --inspect, --cpu-prof or other flag of the gateway's own is passed on.
    const child = spawn(process.execPath, [SELF], { stdio: ['pipe', 'pipe', 'pipe'], timeout: CHILD_TIMEOUT_MS })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk))
    child.on('error', reject)
    child.on('close', (code, signal) => {
      if (code !== 0) {
        reject(new Error(`the analysis child exited with ${signal ?? `code ${code}`}: ${Buffer.concat(err).toString('utf8').trim().slice(0, 1000)}`))
        return
      }
      try {
        resolve(JSON.parse(Buffer.concat(out).toString('utf8')) as ModuleVerdict[])
      } catch (error) {
        reject(error)
      }
    })
    // A child that died before reading its input reports through 'close'.
    child.stdin.on('error', () => {})
    child.stdin.end(JSON.stringify(files))
  })
}

async function runAsChild (): Promise<void> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  const files = JSON.parse(Buffer.concat(chunks).toString('utf8')) as string[]
  process.stdout.write(JSON.stringify(await analyseHere(files)))
}

// Started as the child (by analyseInChild), not imported by discovery.
if (process.argv[1] === SELF) await runAsChild()
