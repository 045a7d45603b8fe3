// npm run bench:search: recall@1/@5/@10 and MRR of the tool search on the labelled catalogue.
// `--misses` also lists the queries whose relevant tools are all missing from the first 5.
import { scoreSearch } from './score.ts'

const scores = scoreSearch()
const percent = (value: number): string => `${(value * 100).toFixed(1)}%`
console.log(`${scores.queries} queries over ${scores.tools} tools of published MCP servers`)
console.table({
  'recall@1': percent(scores.recallAt1),
  'recall@5': percent(scores.recallAt5),
  'recall@10': percent(scores.recallAt10),
  'hit@5 (any relevant tool in the first 5)': percent(scores.hitAt5),
  MRR: scores.mrr.toFixed(3)
})
if (process.argv.includes('--misses')) {
  for (const miss of scores.misses) console.log(`- ${miss.query}\n  wanted ${miss.relevant.join(', ')}\n  got    ${miss.got.join(', ')}`)
}
