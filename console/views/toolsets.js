// #/toolsets: every toolset the caller may see (GET /toolsets): what it includes, its aliases, the
// tools it resolves to, and whether any of them works now; toolsets the configuration names that
// do not exist are listed after.
import { getJson } from '../api.js'
import { h, table } from '../dom.js'
import { startView, toolLink } from './common.js'

function joined (items, render = (item) => item) {
  if (!items || items.length === 0) return 'none'
  return items.flatMap((item, index) => (index === 0 ? [render(item)] : [', ', render(item)]))
}

function row (toolset) {
  return [
    h('strong', null, toolset.name),
    toolset.kind,
    toolset.description,
    joined(toolset.includes),
    joined(toolset.aliases),
    joined(toolset.tools, toolLink),
    h('span', { class: toolset.available ? 'ok' : 'bad' }, toolset.available ? 'available' : (toolset.reason ?? 'unavailable'))
  ]
}

function unknownReferences (references) {
  if (!references || references.length === 0) return ''
  return h('section', { 'aria-labelledby': 'unknown-heading' },
    h('h2', { id: 'unknown-heading' }, 'Toolsets named but not defined'),
    h('ul', null, references.map((ref) => h('li', null,
      h('code', null, ref.toolset), ` in ${ref.where}`,
      ref.closest?.length > 0 ? ` (did you mean ${ref.closest.join(', ')}?)` : ''))))
}

export function render (ctx) {
  const view = startView(ctx, 'Toolsets')
  getJson('../toolsets', { signal: ctx.signal }).then((report) => {
    view.body.replaceChildren(
      table('Toolsets with what they include and the tools they resolve to',
        ['Name', 'Kind', 'Description', 'Includes', 'Aliases', 'Tools', 'Availability'],
        report.toolsets.map(row)),
      unknownReferences(report.unknownReferences))
    view.done()
  }).catch(view.fail)
}
