// #/charts: calls, errors and latency over the last slots (GET /metrics/history), for every tool
// together or one, as three SVG line charts with a data table beside them; read again every 5 s.
import { getJson } from '../api.js'
import { h, table } from '../dom.js'
import { startView } from './common.js'
import { formatNumber, lineChart } from './line-chart.js'

/** The time of each slot: the last one ends at `end`, each lasts `stepSeconds`. */
function slotTimes (history, length) {
  const end = typeof history.end === 'number' ? (history.end < 1e12 ? history.end * 1000 : history.end) : Date.parse(history.end)
  const step = (history.stepSeconds ?? 1) * 1000
  const base = Number.isNaN(end) ? Date.now() : end
  return Array.from({ length }, (_, index) => new Date(base - (length - 1 - index) * step))
}

const clock = (date) => date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })

function perSecond (values, stepSeconds) {
  return (values ?? []).map((value) => (typeof value === 'number' ? value / (stepSeconds || 1) : null))
}

function latest (values) {
  for (let index = values.length - 1; index >= 0; index--) if (typeof values[index] === 'number') return values[index]
  return null
}

function charts (history, name) {
  const series = name === '' ? history.total : history.tools?.[name]
  const who = name === '' ? 'all calls' : name
  const step = history.stepSeconds ?? 1
  const calls = perSecond(series?.calls, step)
  const errors = perSecond(series?.errors, step)
  const p50 = series?.p50Ms ?? []
  const p99 = series?.p99Ms ?? []
  const times = slotTimes(history, calls.length)
  const span = times.length > 0 ? [clock(times[0]), clock(times.at(-1))] : ['', '']
  const figures = [
    lineChart({ id: 'chart-calls', title: 'Calls per second', series: [{ name: 'calls/s', values: calls }], times: span, label: `Calls per second, ${who}: latest ${formatNumber(latest(calls))}` }),
    lineChart({ id: 'chart-errors', title: 'Errors per second', series: [{ name: 'errors/s', values: errors }], times: span, label: `Errors per second, ${who}: latest ${formatNumber(latest(errors))}` }),
    lineChart({ id: 'chart-latency', title: 'Latency p50 and p99 (ms)', unit: ' ms', series: [{ name: 'p50', values: p50 }, { name: 'p99', values: p99 }], times: span, label: `Latency p50 and p99 (ms), ${who}: latest p50 ${formatNumber(latest(p50))}, p99 ${formatNumber(latest(p99))}` })
  ]
  const rows = times.map((time, index) => [clock(time), formatNumber(calls[index]), formatNumber(errors[index]), formatNumber(p50[index]), formatNumber(p99[index])])
    .filter((_, index) => calls[index] > 0 || errors[index] > 0).reverse()
  const data = h('details', { class: 'chart-data' }, h('summary', null, 'Data table'),
    rows.length === 0
      ? h('p', null, `No calls of ${who} in the last ${Math.round((times.length * step) / 60)} minutes.`)
      : table(`Data of ${who}, newest first, per ${step} s slot (slots without calls left out)`, ['Slot end', 'Calls/s', 'Errors/s', 'p50 (ms)', 'p99 (ms)'], rows))
  return [h('div', { class: 'charts' }, figures), data]
}

export function render (ctx) {
  const view = startView(ctx, 'Charts')
  const select = h('select', { id: 'chart-tool' }, h('option', { value: '' }, 'All tools'))
  const area = h('div', { class: 'chart-area' })
  let history = null
  let drawn = ''
  const draw = () => {
    if (history === null) return
    // Nothing new (same series, same slots): the charts stay as they are, and so does the focus.
    const key = JSON.stringify([select.value, history.end, select.value === '' ? history.total : history.tools?.[select.value]])
    if (key === drawn) return
    drawn = key
    const open = area.querySelector('details')?.open ?? false
    const hadFocus = area.contains(document.activeElement)
    area.replaceChildren(...charts(history, select.value))
    if (open) area.querySelector('details').open = true
    if (hadFocus) area.querySelector(open ? '.chart-data .table-wrap, .chart-data summary' : '.chart-data summary')?.focus()
  }
  const syncTools = () => {
    const known = new Set([...select.options].map((option) => option.value))
    for (const name of Object.keys(history.tools ?? {}).sort()) {
      if (!known.has(name)) select.append(h('option', { value: name }, name))
    }
  }
  select.addEventListener('change', draw)
  view.body.replaceChildren(
    h('div', { class: 'filters' }, h('div', { class: 'field' }, h('label', { for: 'chart-tool' }, 'Tool'), select)),
    h('p', { class: 'muted' }, 'Read again every 5 seconds while this page is open.'),
    area)
  const load = () => getJson('../metrics/history', { signal: ctx.signal }).then((answer) => {
    history = answer
    syncTools()
    draw()
    view.done()
  }).catch(view.fail)
  load()
  ctx.every(5000, load)
}
