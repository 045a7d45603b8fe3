// Small DOM helpers: elements are built with the DOM API (no innerHTML, no inline styles or
// handlers), so the page works under its strict Content-Security-Policy and never parses text as HTML.

const SVG_NS = 'http://www.w3.org/2000/svg'

function applyProps (el, props) {
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue
    if (key === 'class') el.setAttribute('class', value)
    else if (key === 'text') el.textContent = String(value)
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2).toLowerCase(), value)
    else if (key === 'value' && 'value' in el) el.value = value
    else if (key === 'checked' && 'checked' in el) el.checked = Boolean(value)
    else el.setAttribute(key, value === true ? '' : String(value))
  }
}

function append (el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue
    el.append(child instanceof Node ? child : document.createTextNode(String(child)))
  }
  return el
}

/** An HTML element: h('a', { href: '#/tools' }, 'Tools'). */
export function h (tag, props, ...children) {
  const el = document.createElement(tag)
  applyProps(el, props)
  return append(el, children)
}

/** An SVG element, built the same way. */
export function s (tag, props, ...children) {
  const el = document.createElementNS(SVG_NS, tag)
  applyProps(el, props)
  return append(el, children)
}

/** A table in a wrapper that scrolls sideways on a narrow screen and is reachable by keyboard. */
export function tableWrap (label, table) {
  return h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': label }, table)
}

/** A table with a caption, header cells and rows of cells (strings or nodes). */
export function table (caption, headers, rows) {
  const head = h('thead', null, h('tr', null, headers.map((name) => h('th', { scope: 'col' }, name))))
  const body = h('tbody', null, rows.map((cells) => h('tr', null, cells.map((cell) => h('td', null, cell)))))
  return tableWrap(caption, h('table', null, h('caption', null, caption), head, body))
}

/** A definition list from [term, value] pairs. */
export function definitions (pairs) {
  return h('dl', { class: 'facts' }, pairs.map(([term, value]) => [h('dt', null, term), h('dd', null, value)]))
}

/** A message that assistive technologies announce: 'status' for progress, 'alert' for errors. */
export function notice (role, text) {
  return h('p', { role, class: role === 'alert' ? 'notice error' : 'notice' }, text)
}

/** JSON text pretty-printed when it parses, else as it is. */
export function pretty (value) {
  if (typeof value !== 'string') return JSON.stringify(value, null, 2)
  try {
    return JSON.stringify(JSON.parse(value), null, 2)
  } catch {
    return value
  }
}

export function formatTime (iso) {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleString()
}
