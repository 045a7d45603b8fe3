// Suggests the valid names closest to one that names nothing ("fiel" → "file"), for start-up
// warnings and error messages. Edit distance counts a swap of two neighbouring letters as one edit
// (the commonest typo), ignores case, and only suggests names a typo away, never a random one.

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
function editDistance (a: string, b: string): number {
  // Three rows suffice: the swap looks two rows back.
  let before = new Array<number>(b.length + 1).fill(0)
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2] + 1)
      current.push(best)
    }
    before = previous
    previous = current
  }
  return previous[b.length]
}

/** The candidates at most a typo from `wanted` (one edit per three letters, at least one), closest first, then by name. */
export function closestNames (wanted: string, candidates: Iterable<string>, limit = 3): string[] {
  const target = wanted.trim().toLowerCase()
  if (target === '') return []
  const allowed = Math.max(1, Math.floor(target.length / 3))
  const scored: Array<{ name: string, distance: number }> = []
  for (const name of new Set(candidates)) {
    const distance = editDistance(target, name.toLowerCase())
    if (distance <= allowed) scored.push({ name, distance })
  }
  scored.sort((x, y) => x.distance - y.distance || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0))
  return scored.slice(0, limit).map((entry) => entry.name)
}
