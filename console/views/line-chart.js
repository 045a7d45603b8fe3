// A line chart drawn as SVG with DOM calls (no library, no inline style): one polyline per run of
// known values of each series, the y axis from zero to the largest value, the time span below.
// The <svg> is role="img" with an aria-label that says the latest values; the page also offers a
// data table.
import { h, s } from '../dom.js'

const WIDTH = 640
const HEIGHT = 220
const PAD = { left: 56, right: 12, top: 12, bottom: 28 }

function niceMax (value) {
  if (!(value > 0)) return 1
  const power = 10 ** Math.floor(Math.log10(value))
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= value) return step * power
  return 10 * power
}

export function formatNumber (value) {
  if (value === null || value === undefined || Number.isNaN(value)) return 'no data'
  if (value === 0) return '0'
  if (Math.abs(value) >= 100) return String(Math.round(value))
  return String(Number(value.toPrecision(3)))
}

/** Runs of consecutive known points, each a list of [x, y] in the chart's coordinates. */
function runs (values, x, y) {
  const out = []
  let current = []
  values.forEach((value, index) => {
    if (value === null || value === undefined || Number.isNaN(value)) {
      if (current.length > 0) out.push(current)
      current = []
    } else {
      current.push([x(index), y(value)])
    }
  })
  if (current.length > 0) out.push(current)
  return out
}

function axes (max, unit, first, last) {
  const bottom = HEIGHT - PAD.bottom
  return [
    s('line', { class: 'axis', x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: bottom }),
    s('line', { class: 'axis', x1: PAD.left, y1: bottom, x2: WIDTH - PAD.right, y2: bottom }),
    s('line', { class: 'grid', x1: PAD.left, y1: PAD.top, x2: WIDTH - PAD.right, y2: PAD.top }),
    s('text', { class: 'tick', x: PAD.left - 6, y: PAD.top + 4, 'text-anchor': 'end' }, `${formatNumber(max)}${unit}`),
    s('text', { class: 'tick', x: PAD.left - 6, y: bottom, 'text-anchor': 'end' }, `0${unit}`),
    s('text', { class: 'tick', x: PAD.left, y: HEIGHT - 8, 'text-anchor': 'start' }, first),
    s('text', { class: 'tick', x: WIDTH - PAD.right, y: HEIGHT - 8, 'text-anchor': 'end' }, last)
  ]
}

/**
 * A figure with a heading, the SVG and a legend. `series`: [{ name, values }]; `times`: a label of
 * the first and last slot; `label`: the aria-label of the SVG.
 */
export function lineChart ({ id, title, series, times, unit = '', label }) {
  const count = Math.max(1, ...series.map((one) => one.values.length))
  const max = niceMax(Math.max(0, ...series.flatMap((one) => one.values.filter((v) => typeof v === 'number'))))
  const x = (index) => PAD.left + (count === 1 ? 0 : (index / (count - 1)) * (WIDTH - PAD.left - PAD.right))
  const y = (value) => HEIGHT - PAD.bottom - (value / max) * (HEIGHT - PAD.top - PAD.bottom)
  const lines = series.flatMap((one, index) => runs(one.values, x, y).map((points) =>
    points.length === 1
      ? s('circle', { class: `series series-${index}`, cx: points[0][0], cy: points[0][1], r: 2.5 })
      : s('polyline', { class: `series series-${index}`, points: points.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(' ') })))
  const svg = s('svg', { role: 'img', 'aria-label': label, viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: 'chart' },
    axes(max, unit, times[0], times[1]), lines)
  const legend = h('ul', { class: 'legend' }, series.map((one, index) => h('li', null,
    h('span', { class: `swatch swatch-${index}`, 'aria-hidden': 'true' }), one.name)))
  return h('figure', { class: 'chart-figure', 'aria-labelledby': id }, h('h2', { id }, title), svg, series.length > 1 ? legend : '')
}
