// #/tools: every tool the caller may see (GET /tools), with its toolset, origin, availability,
// annotations and what its definition costs in tokens; a toolset select and a text filter narrow
// the rows as one types.
import { getJson } from '../api.js'
import { h, tableWrap } from '../dom.js'
import { annotationWords, availabilityText, originText, startView, toolLink } from './common.js'

function row (tool) {
  const words = annotationWords(tool.annotations)
  const tokens = tool.definitionTokens === null || tool.definitionTokens === undefined ? 'not served' : String(tool.definitionTokens)
  const tr = h('tr', { 'data-tool': tool.name },
    h('th', { scope: 'row' }, toolLink(tool.name)),
    h('td', null, tool.toolset),
    h('td', { class: 'nowrap' }, originText(tool.origin)),
    h('td', { class: tool.available ? 'ok' : 'bad' }, availabilityText(tool), tool.trust?.held ? ' (definition held)' : ''),
    h('td', null, words.length > 0 ? words.join(', ') : 'none declared'),
    h('td', { class: 'num' }, tokens))
  tr.searchText = [tool.name, tool.description, tool.toolset, originText(tool.origin)].join(' ').toLowerCase()
  tr.toolset = tool.toolset
  return tr
}

function filters (toolsets, apply) {
  const select = h('select', { id: 'filter-toolset' },
    h('option', { value: '' }, 'All toolsets'),
    toolsets.map((name) => h('option', { value: name }, name)))
  const input = h('input', { id: 'filter-text', type: 'search', autocomplete: 'off' })
  select.addEventListener('change', apply)
  input.addEventListener('input', apply)
  const form = h('form', { class: 'filters' },
    h('div', { class: 'field' }, h('label', { for: 'filter-toolset' }, 'Toolset'), select),
    h('div', { class: 'field' }, h('label', { for: 'filter-text' }, 'Filter'), input))
  form.addEventListener('submit', (event) => event.preventDefault())
  return { form, select, input }
}

export function render (ctx) {
  const view = startView(ctx, 'Tools')
  getJson('../tools', { signal: ctx.signal }).then((report) => {
    const rows = report.tools.map(row)
    const toolsets = [...new Set(report.tools.map((tool) => tool.toolset))].sort()
    const count = h('p', { class: 'count', 'aria-live': 'polite' })
    const apply = () => {
      const text = controls.input.value.trim().toLowerCase()
      const toolset = controls.select.value
      let shown = 0
      for (const tr of rows) {
        tr.hidden = !((toolset === '' || tr.toolset === toolset) && (text === '' || tr.searchText.includes(text)))
        if (!tr.hidden) shown++
      }
      count.textContent = `${shown} of ${rows.length} tools shown`
    }
    const controls = filters(toolsets, apply)
    const headers = ['Name', 'Toolset', 'Origin', 'Availability', 'Annotations', 'Definition tokens']
    const table = h('table', { class: 'tools' },
      h('caption', null, `Tools: ${report.summary.available} available, ${report.summary.unavailable} unavailable`),
      h('thead', null, h('tr', null, headers.map((name) => h('th', { scope: 'col' }, name)))),
      h('tbody', null, rows))
    view.body.replaceChildren(controls.form, count, tableWrap('Tools table', table))
    apply()
    view.done()
  }).catch(view.fail)
}
