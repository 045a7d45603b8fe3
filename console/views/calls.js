// #/calls (operators): the latest tool calls from the audit trail (GET /admin/audit, type "call"),
// newest first, filtered by tool, status and caller; read again every 5 s while shown, from the
// cursor of the last read so that only new lines travel.
import { getJson } from '../api.js'
import { formatTime, h, tableWrap } from '../dom.js'
import { startView } from './common.js'

const KEEP = 500
const PAGE = 500
const MAX_PAGES = 20

/** Reads the lines after the cursor (or of the last day on the first read), a page at a time. */
async function readNew (state, signal) {
  let query = state.cursor === null ? `since=${encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString())}` : `cursor=${state.cursor}`
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await getJson(`../admin/audit?${query}&limit=${PAGE}`, { signal })
    for (const line of answer.lines) if (line.type === 'call') state.calls.unshift(line)
    if (state.calls.length > KEEP) state.calls.length = KEEP
    state.cursor = answer.cursor
    if (answer.lines.length < PAGE) break
    query = `cursor=${answer.cursor}`
  }
}

function filterControls (onChange) {
  const field = (id, label, control) => h('div', { class: 'field' }, h('label', { for: id }, label), control)
  const tool = h('input', { id: 'calls-tool', type: 'search', autocomplete: 'off' })
  const status = h('select', { id: 'calls-status' }, h('option', { value: '' }, 'Any status'))
  const caller = h('input', { id: 'calls-caller', type: 'search', autocomplete: 'off' })
  for (const control of [tool, caller]) control.addEventListener('input', onChange)
  status.addEventListener('change', onChange)
  const form = h('form', { class: 'filters' },
    field('calls-tool', 'Tool', tool), field('calls-status', 'Status', status), field('calls-caller', 'Caller', caller))
  form.addEventListener('submit', (event) => event.preventDefault())
  return { form, tool, status, caller }
}

function syncStatusOptions (select, calls) {
  const known = new Set([...select.options].map((option) => option.value))
  for (const status of new Set(calls.map((call) => call.status))) {
    if (!known.has(status)) select.append(h('option', { value: status }, status))
  }
}

function rowOf (call) {
  return h('tr', null,
    h('td', null, h('time', { datetime: call.time }, formatTime(call.time))),
    h('td', null, call.principal ?? 'anonymous'),
    h('td', null, call.tool ?? ''),
    h('td', { class: call.status === 'ok' ? 'ok' : 'bad' }, call.status ?? ''),
    h('td', { class: 'num' }, call.durationMs === undefined ? '' : String(call.durationMs)))
}

export function render (ctx) {
  const view = startView(ctx, 'Calls')
  const state = { cursor: null, calls: [] }
  const tbody = h('tbody')
  const count = h('p', { class: 'count', 'aria-live': 'polite' })
  const draw = () => {
    const tool = controls.tool.value.trim().toLowerCase()
    const status = controls.status.value
    const caller = controls.caller.value.trim().toLowerCase()
    const shown = state.calls.filter((call) => (tool === '' || String(call.tool ?? '').toLowerCase().includes(tool)) &&
      (status === '' || call.status === status) &&
      (caller === '' || String(call.principal ?? '').toLowerCase().includes(caller)))
    syncStatusOptions(controls.status, state.calls)
    tbody.replaceChildren(...shown.map(rowOf))
    count.textContent = state.calls.length === 0 ? 'No call recorded in the last day yet.' : `${shown.length} of ${state.calls.length} calls shown (newest first)`
  }
  const controls = filterControls(draw)
  const refresh = h('button', { type: 'button' }, 'Refresh')
  const load = () => {
    if (state.busy) return
    state.busy = true
    readNew(state, ctx.signal).then(() => { draw(); view.done() }).catch(view.fail).finally(() => { state.busy = false })
  }
  refresh.addEventListener('click', load)
  const headers = ['Time', 'Caller', 'Tool', 'Status', 'Duration (ms)']
  const table = h('table', null, h('caption', null, 'Latest calls, newest first'),
    h('thead', null, h('tr', null, headers.map((name) => h('th', { scope: 'col' }, name)))), tbody)
  view.body.replaceChildren(h('div', { class: 'toolbar' }, controls.form, refresh), h('p', { class: 'muted' }, 'Read again every 5 seconds while this page is open.'), count, tableWrap('Calls table', table))
  load()
  ctx.every(5000, load)
}
