// #/tools/<name>: one tool in full (GET /tools/:name): description, parameters, limits,
// annotations, the trust of an upstream tool, and a form that runs it.
import { getJson } from '../api.js'
import { definitions, h, table } from '../dom.js'
import { annotationWords, availabilityText, originText, startView } from './common.js'
import { runForm } from './run-form.js'

function typeText (schema) {
  if (!schema || typeof schema !== 'object') return 'any'
  let type = Array.isArray(schema.type) ? schema.type.join(' or ') : (schema.type ?? (schema.anyOf || schema.oneOf ? 'one of several' : 'any'))
  if (type === 'array' && schema.items?.type) type = `array of ${schema.items.type}`
  if (Array.isArray(schema.enum)) type += ` (${schema.enum.map((v) => JSON.stringify(v)).join(', ')})`
  return type
}

function parametersTable (name, parameters) {
  const properties = parameters?.properties ?? {}
  const required = new Set(parameters?.required ?? [])
  const names = Object.keys(properties)
  if (names.length === 0) return h('p', null, 'It takes no parameters.')
  return table(`Parameters of ${name}`, ['Name', 'Type', 'Required', 'Description'],
    names.map((param) => [h('code', null, param), typeText(properties[param]), required.has(param) ? 'required' : 'optional', properties[param]?.description ?? '']))
}

function limits (detail) {
  const { timeoutMs, maxResultSizeChars } = detail.limits ?? {}
  const pairs = [
    ['Timeout', timeoutMs === undefined ? 'unknown' : `${timeoutMs} ms`],
    ['Result cap', maxResultSizeChars === null || maxResultSizeChars === undefined ? 'unlimited' : `${maxResultSizeChars} characters`]
  ]
  for (const [key, value] of Object.entries(detail.limits ?? {})) {
    if (key !== 'timeoutMs' && key !== 'maxResultSizeChars') pairs.push([key, String(value)])
  }
  if (detail.requiresEnv?.length > 0) pairs.push(['Needs environment', detail.requiresEnv.join(', ')])
  return definitions(pairs)
}

function trustSection (trust) {
  if (!trust) return ''
  return h('section', { 'aria-labelledby': 'trust-heading' },
    h('h2', { id: 'trust-heading' }, 'Trust'),
    definitions([
      ['Definition', trust.held ? `held: ${trust.reason ?? 'until an operator approves it'}` : 'served'],
      ['Digest', h('code', null, trust.digest)],
      ['Findings', trust.findings?.length > 0 ? trust.findings.join('; ') : 'none']
    ]))
}

function section (id, title, ...content) {
  return h('section', { 'aria-labelledby': id }, h('h2', { id }, title), ...content)
}

export function render (ctx, name) {
  const view = startView(ctx, name)
  getJson(`../tools/${encodeURIComponent(name)}`, { signal: ctx.signal }).then((detail) => {
    const words = annotationWords(detail.annotations)
    view.body.replaceChildren(
      h('p', { class: 'back' }, h('a', { href: '#/tools' }, 'All tools')),
      section('about-heading', 'About',
        h('p', { class: 'description' }, detail.description),
        definitions([
          ['Toolset', detail.toolset],
          ['Origin', originText(detail.origin)],
          ['Availability', availabilityText(detail)]
        ])),
      section('params-heading', 'Parameters', parametersTable(name, detail.parameters)),
      section('limits-heading', 'Limits', limits(detail)),
      section('annotations-heading', 'Annotations',
        h('p', null, words.length > 0 ? words.join(', ') : 'none declared'),
        detail.annotations?.title ? h('p', null, `Title: ${detail.annotations.title}`) : ''),
      trustSection(detail.trust),
      runForm(name, detail.parameters ?? {}))
    view.done()
  }).catch(view.fail)
}
