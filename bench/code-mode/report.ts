// The markdown tables of a code-mode bench run, from what run.ts writes to results.json.
import type { Definitions, TaskResult } from './measure-tasks.ts'
import type { Load, Ratio } from './overhead.ts'

export interface Results {
  started: string
  machine: Record<string, unknown>
  loadAverage: { start: number[], end: number[] }
  definitions: Definitions
  tasks: TaskResult[]
  overhead: { loads: Load[], ratios: Ratio[] }
}

const n = (value: number): string => value.toLocaleString('en-US').replace(/,/g, ' ')
const fewer = (pct: number): string => pct >= 0 ? `${pct} % fewer` : `${-pct} % more`
const load = (values: number[]): string => values.map((v) => v.toFixed(2)).join(' ')

function taskTable (task: TaskResult): string[] {
  const rows = task.ways.map((w) => {
    const tools = Object.entries(w.tools).map(([tool, count]) => `${count} ${tool}`).join(' + ')
    return `| ${w.way} | ${tools} | ${w.sequential.turns} / ${w.parallel.turns} | ${n(w.sent)} | ${n(w.read)} | ${n(w.answer)} | **${n(w.total)}** | ${w.wallMs} | ${n(w.context)} | ${n(w.sequential.processed)} / ${n(w.parallel.processed)} |`
  })
  const reductions = Object.entries(task.reduction).map(([way, pct]) =>
    `${fewer(pct)} than ${way}; processed over the loop, one call a turn / parallel calls: ${fewer(task.processedReduction[way])} / ${fewer(task.parallelReduction[way])} ` +
    `with ?toolsets=code,file, ${fewer(task.codeAlone.processedReduction[way])} / ${fewer(task.codeAlone.parallelReduction[way])} with execute_code's entry alone (${n(task.codeAlone.processed)} processed)`)
  return [
    `### ${task.title}`,
    '',
    `Prompt: "${task.prompt}"`,
    '',
    '| way | tool calls | model turns, one call a turn / parallel calls | sent | read | answer | task tokens | wall ms (median) | context at start (definitions + prompt) | tokens processed over the loop, one call a turn / parallel |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    `Code mode's task tokens: ${reductions.join('. ')}.`,
    ''
  ]
}

export function markdownReport (results: Results): string {
  const d = results.definitions
  const lines = [
    `## Code mode bench, ${results.started} (${String(results.machine.cores)} cores, ${String(results.machine.cpu)}, Node ${String(results.machine.node)}; load average ${load(results.loadAverage.start)} → ${load(results.loadAverage.end)})`,
    '',
    `Definitions (X-Definitions-Tokens): ?toolsets=file ${n(d.file)}, ?toolsets=code,file ${n(d.codeAndFile)} (execute_code's entry alone ${n(d.codeAlone)}).`,
    '',
    ...results.tasks.flatMap(taskTable),
    '### Overhead',
    '',
    '| scenario | requests/s | p50 ms | p99 ms | failures |',
    '|---|---:|---:|---:|---:|',
    ...results.overhead.loads.map((l) => `| ${l.description} | ${n(l.requestsPerSecond)} | ${l.p50} | ${l.p99} | ${l.failures} |`),
    '',
    '| comparison | requests/s ratio | p50 ratio | p99 ratio |',
    '|---|---:|---:|---:|',
    ...results.overhead.ratios.map((r) => `| ${r.id} (${r.of} / ${r.against}) | ${r.throughput} | ${r.p50} | ${r.p99} |`)
  ]
  return lines.join('\n')
}
