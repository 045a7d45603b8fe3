// Each task done each way against a running gateway: a warm-up pass, then `runs` measured passes
// (the wall time is their median; the tokens are the same on every pass, and checked to be), every
// answer checked against the corpus's own. A way that answers otherwise fails the run.
import { deepStrictEqual } from 'node:assert/strict'
import type { Corpus } from './corpus.ts'
import { WAYS, type Task, type Way } from './tasks.ts'
import { costsOf, countTokens, recordingAgent, type Costs, type Transcript } from './transcript.ts'

export interface Definitions {
  /** GET /definitions?toolsets=file: what a model calling the file tools itself is given. */
  file: number
  /** GET /definitions?toolsets=code,file: execute_code (its description declaring the file tools) and the file tools. */
  codeAndFile: number
  /** execute_code's entry alone in that answer: a model given only the script tool. */
  codeAlone: number
}

export async function fetchDefinitions (url: string): Promise<Definitions> {
  const tokens = async (query: string): Promise<{ header: number, body: Array<{ function: { name: string } }> }> => {
    const response = await fetch(`${url}/definitions?toolsets=${query}`)
    const body = await response.json() as Array<{ function: { name: string } }>
    const header = Number(response.headers.get('x-definitions-tokens'))
    if (response.status !== 200 || !Number.isFinite(header) || header <= 0) throw new Error(`GET /definitions?toolsets=${query}: ${response.status}, X-Definitions-Tokens ${String(header)}`)
    return { header, body }
  }
  const file = await tokens('file')
  const both = await tokens('code,file')
  const code = both.body.find((entry) => entry.function.name === 'execute_code')
  if (code === undefined) throw new Error('execute_code is not among the definitions: is CODE_MODE on?')
  return { file: file.header, codeAndFile: both.header, codeAlone: countTokens(JSON.stringify(code)) }
}

export interface WayResult extends Costs {
  way: Way
  /** The context every turn starts from: the definitions given, and the prompt. */
  context: number
  definitions: number
  prompt: number
  /** Wall time of each measured pass, ms. */
  passesMs: number[]
  answerText: string
}

export interface TaskResult {
  id: string
  title: string
  prompt: string
  answer: unknown
  ways: WayResult[]
  /** Code mode's tokens (sent + read + answer) against each step-by-step way's: 1 - code / step. */
  reduction: Record<string, number>
  /** The same for the tokens processed over the whole agent loop, one call a turn. */
  processedReduction: Record<string, number>
  /** And with the independent calls of a step in one turn (parallel tool calls). */
  parallelReduction: Record<string, number>
  /**
   * Code mode given execute_code's entry alone (its description declares the file tools) rather
   * than ?toolsets=code,file: the context of each turn is smaller by the difference.
   */
  codeAlone: { context: number, processed: number, processedReduction: Record<string, number>, parallelReduction: Record<string, number> }
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

const round = (value: number, digits = 1): number => Math.round(value * 10 ** digits) / 10 ** digits

async function measureWay<A> (url: string, task: Task<A>, way: Way, expected: A, definitions: number, runs: number): Promise<WayResult> {
  let last: Costs | undefined
  let answerText = ''
  const passesMs: number[] = []
  const prompt = countTokens(task.prompt)
  for (let pass = 0; pass <= runs; pass++) {
    const transcript: Transcript = { calls: [], wallMs: 0 }
    const answer = await task.ways[way](recordingAgent(url, transcript))
    deepStrictEqual(task.canonical(answer), expected, `${task.id}, ${way}: the answer differs from the corpus's`)
    answerText = task.answerText(task.canonical(answer))
    const costs = costsOf(transcript, answerText, definitions + prompt)
    if (last !== undefined && (costs.sent !== last.sent || costs.read !== last.read)) throw new Error(`${task.id}, ${way}: tokens changed between passes`)
    last = costs
    // Pass 0 warms the sandbox's workers and the file cache.
    if (pass > 0) passesMs.push(round(transcript.wallMs))
  }
  const costs = last as Costs
  return { way, ...costs, wallMs: round(median(passesMs)), context: definitions + prompt, definitions, prompt, passesMs, answerText }
}

export async function measureTask<A> (url: string, task: Task<A>, corpus: Corpus, definitions: Definitions, runs: number): Promise<TaskResult> {
  const expected = task.canonical(task.expected(corpus))
  const ways: WayResult[] = []
  for (const way of WAYS) ways.push(await measureWay(url, task, way, expected, way === 'code' ? definitions.codeAndFile : definitions.file, runs))
  const code = ways.find((w) => w.way === 'code') as WayResult
  // Every turn reads the context once: a smaller context saves its difference on each turn.
  const aloneProcessed = code.sequential.processed - (definitions.codeAndFile - definitions.codeAlone) * code.sequential.turns
  const percentFewer = (of: number, against: number): number => round(100 * (1 - of / against))
  const reduction: Record<string, number> = {}
  const processedReduction: Record<string, number> = {}
  const parallelReduction: Record<string, number> = {}
  const codeAlone = { context: code.context - definitions.codeAndFile + definitions.codeAlone, processed: aloneProcessed, processedReduction: {} as Record<string, number>, parallelReduction: {} as Record<string, number> }
  for (const step of ways.filter((w) => w.way !== 'code')) {
    reduction[step.way] = percentFewer(code.total, step.total)
    processedReduction[step.way] = percentFewer(code.sequential.processed, step.sequential.processed)
    parallelReduction[step.way] = percentFewer(code.parallel.processed, step.parallel.processed)
    codeAlone.processedReduction[step.way] = percentFewer(aloneProcessed, step.sequential.processed)
    codeAlone.parallelReduction[step.way] = percentFewer(aloneProcessed, step.parallel.processed)
  }
  return { id: task.id, title: task.title, prompt: task.prompt, answer: expected, ways, reduction, processedReduction, parallelReduction, codeAlone }
}
