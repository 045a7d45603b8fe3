// The "Run <tool>" form, generated from the tool's input schema: one labelled field per parameter,
// its arguments POSTed to ../dispatch/<name>, and the envelope shown in the Result section.
import { request, errorOf, describeError } from '../api.js'
import { definitions, h, notice, pretty } from '../dom.js'

function kindOf (schema) {
  const types = Array.isArray(schema?.type) ? schema.type.filter((t) => t !== 'null') : [schema?.type]
  if (Array.isArray(schema?.enum)) return 'enum'
  const type = types[0]
  if (type === 'string' || type === 'integer' || type === 'number' || type === 'boolean') return type
  return 'json'
}

function control (id, kind, schema, required, hintId) {
  const common = { id, required, 'aria-describedby': hintId }
  if (kind === 'enum') {
    return h('select', common, required ? '' : h('option', { value: '' }, '(none)'),
      schema.enum.map((value) => h('option', { value: JSON.stringify(value), selected: value === schema.default }, String(value))))
  }
  if (kind === 'boolean') return h('input', { ...common, required: false, type: 'checkbox', checked: schema.default === true })
  if (kind === 'integer' || kind === 'number') {
    return h('input', { ...common, type: 'number', step: kind === 'integer' ? '1' : 'any', min: schema.minimum, max: schema.maximum, value: schema.default })
  }
  if (kind === 'string') return h('input', { ...common, type: 'text', autocomplete: 'off', value: schema.default, minlength: schema.minLength, maxlength: schema.maxLength })
  return h('textarea', { ...common, rows: '4', spellcheck: 'false', placeholder: schema?.type === 'array' ? '[ ]' : '{ }' })
}

function field (param, schema, required, index) {
  const id = `arg-${index}`
  const hintId = `${id}-hint`
  const kind = kindOf(schema)
  const input = control(id, kind, schema ?? {}, required, hintId)
  const hint = [required ? 'Required.' : 'Optional.', kind === 'json' ? 'JSON.' : '', schema?.description ?? ''].filter(Boolean).join(' ')
  const label = h('label', { for: id }, param)
  const wrapper = kind === 'boolean'
    ? h('div', { class: 'field check' }, input, label, h('p', { id: hintId, class: 'hint' }, hint))
    : h('div', { class: 'field' }, label, input, h('p', { id: hintId, class: 'hint' }, hint))
  return { param, kind, input, required, schema: schema ?? {}, wrapper }
}

/** The arguments the fields hold; throws an Error naming a field whose JSON does not parse. */
function collect (fields) {
  const args = {}
  for (const { param, kind, input, required, schema } of fields) {
    if (kind === 'boolean') {
      if (input.checked || required || schema.default === true) args[param] = input.checked
      continue
    }
    const raw = input.value
    if (raw.trim() === '') continue
    if (kind === 'enum') args[param] = JSON.parse(raw)
    else if (kind === 'integer' || kind === 'number') args[param] = Number(raw)
    else if (kind === 'string') args[param] = raw
    else {
      try {
        args[param] = JSON.parse(raw)
      } catch {
        throw new Error(`${param}: not valid JSON`)
      }
    }
  }
  return args
}

function envelopeView (status, envelope) {
  const pairs = [['Status', h('strong', { class: envelope.ok ? 'ok' : 'bad' }, String(envelope.status))]]
  if (envelope.ok !== undefined) pairs.push(['ok', String(envelope.ok)])
  pairs.push(['HTTP status', String(status)])
  if (envelope.durationMs !== undefined) pairs.push(['Duration', `${envelope.durationMs} ms`])
  if (envelope.callId) pairs.push(['Call id', envelope.callId])
  if (envelope.approvalId) pairs.push(['Approval id', envelope.approvalId])
  if (envelope.truncated) pairs.push(['Truncated', `yes, of ${envelope.originalLength} characters${envelope.resultId ? ` (kept as ${envelope.resultId})` : ''}`])
  if (envelope.error) pairs.push(['Error', `${envelope.error.message} (${envelope.error.code})`])
  const parts = [definitions(pairs)]
  if (envelope.content !== undefined) parts.push(h('h3', null, 'Content'), h('pre', { class: 'json', tabindex: '0' }, pretty(envelope.content)))
  return parts
}

function resultOf (status, body) {
  if (body && typeof body === 'object' && 'status' in body && ('content' in body || 'tool' in body)) return envelopeView(status, body)
  if (status >= 200 && status < 300) return [definitions([['HTTP status', String(status)]]), h('pre', { class: 'json' }, pretty(body))]
  return [notice('alert', errorOf(status, body).readable)]
}

export function runForm (name, parameters) {
  const properties = parameters.properties ?? {}
  const required = new Set(parameters.required ?? [])
  const fields = Object.keys(properties).map((param, index) => field(param, properties[param], required.has(param), index))
  const output = h('div', { class: 'run-output', 'aria-live': 'polite' })
  const button = h('button', { type: 'submit' }, 'Run')
  const form = h('form', { class: 'run', 'aria-labelledby': 'run-heading' },
    fields.length === 0 ? h('p', null, 'It takes no arguments.') : fields.map((f) => f.wrapper),
    button)
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    let args
    try {
      args = collect(fields)
    } catch (error) {
      output.replaceChildren(notice('alert', error.message))
      return
    }
    button.disabled = true
    output.replaceChildren(notice('status', `Running ${name}…`))
    try {
      const { status, body } = await request(`../dispatch/${encodeURIComponent(name)}`, { method: 'POST', body: args })
      output.replaceChildren(h('section', { 'aria-label': 'Result', class: 'result' }, h('h3', null, 'Result'), ...resultOf(status, body)))
    } catch (error) {
      output.replaceChildren(notice('alert', describeError(error)))
    } finally {
      button.disabled = false
    }
  })
  return h('section', { 'aria-labelledby': 'run-heading', class: 'run-section' }, h('h2', { id: 'run-heading' }, `Run ${name}`), form, output)
}
