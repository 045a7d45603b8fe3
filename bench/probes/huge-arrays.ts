// Probe of issue 25 item 6: arrays of half a million members inside the 1 MiB body limit, one call
// and then eight at once, against web_extract (maxItems 5). Run: npm run build && node bench/probes/huge-arrays.ts
import { probe } from './harness.ts'

const body = JSON.stringify({ urls: Array.from({ length: 500_000 }, () => 1) })

async function send (url: string): Promise<number> {
  const response = await fetch(`${url}/dispatch/web_extract`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  await response.arrayBuffer()
  return response.status
}

for (const parallel of [1, 8]) {
  const statuses: number[] = []
  const figures = await probe(`huge-arrays-${parallel}`, {}, async (gateway) => {
    await send(gateway.url) // the validators compiled, as on a gateway that has served a while
    statuses.push(...await Promise.all(Array.from({ length: parallel }, async () => await send(gateway.url))))
  })
  console.log(JSON.stringify({ probe: 'huge-arrays', parallel, bodyBytes: body.length, statuses: [...new Set(statuses)], ...figures }))
}
