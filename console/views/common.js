// What every view shares: its heading (focused on route change by app.js), a status line that says
// it is loading or what went wrong, and the body the view fills once its data arrived.
import { describeError } from '../api.js'
import { h, notice } from '../dom.js'

export function startView (ctx, title) {
  const heading = h('h1', { tabindex: '-1' }, title)
  const status = h('div', { class: 'view-status' }, notice('status', 'Loading…'))
  const body = h('div', { class: 'view-body' })
  ctx.main.replaceChildren(heading, status, body)
  return {
    heading,
    body,
    loading () { status.replaceChildren(notice('status', 'Loading…')) },
    done (text) { status.replaceChildren(text ? notice('status', text) : h('p', { role: 'status', class: 'visually-hidden' })) },
    fail (error) {
      if (error?.name === 'AbortError') return
      status.replaceChildren(notice('alert', describeError(error)))
    }
  }
}

export function originText (origin) {
  if (!origin) return 'unknown'
  if (origin.kind === 'mcp') return `MCP server ${origin.server}`
  if (origin.kind === 'plugin') return `plugin ${origin.plugin}`
  return 'built-in'
}

/** The behaviour hints a tool declared, as short words; the MCP defaults are not spelled out. */
export function annotationWords (annotations = {}) {
  const words = []
  if (annotations.readOnly === true) words.push('read-only')
  if (annotations.destructive === true) words.push('destructive')
  if (annotations.destructive === false) words.push('not destructive')
  if (annotations.idempotent === true) words.push('idempotent')
  if (annotations.openWorld === true) words.push('open world')
  if (annotations.openWorld === false) words.push('closed world')
  return words
}

export function availabilityText (tool) {
  return tool.available ? 'available' : (tool.reason ?? 'unavailable')
}

export function toolLink (name) {
  return h('a', { href: `#/tools/${encodeURIComponent(name)}` }, name)
}
