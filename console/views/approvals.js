// #/approvals (operators): the calls waiting for a person's approval (GET /admin/approvals), each
// with its tool, caller and exact arguments, approved or denied with a reason
// (POST /admin/approvals/:id); and the upstream tool definitions held since they changed
// (GET /tools, trust.held), with the difference, approved with POST /admin/tools/:name/approve.
import { describeError, getJson, postJson } from '../api.js'
import { definitions, formatTime, h, notice, pretty, table } from '../dom.js'
import { startView, toolLink } from './common.js'

function approvalItem (approval, index, decide) {
  const what = `${approval.tool} call ${approval.callId}`
  const reasonId = `reason-${index}`
  const reason = h('input', { id: reasonId, type: 'text', maxlength: '2000', autocomplete: 'off' })
  const button = (decision, text) => {
    const el = h('button', { type: 'button', class: decision, 'aria-label': `${text} ${what}` }, text)
    el.addEventListener('click', () => decide(approval, decision, reason.value.trim(), what))
    return el
  }
  return h('li', { class: 'card' },
    h('h3', null, what),
    definitions([
      ['Tool', toolLink(approval.tool)],
      ['Caller', approval.caller],
      ['Asked at', h('time', { datetime: approval.createdAt }, formatTime(approval.createdAt))],
      ['Expires at', h('time', { datetime: approval.expiresAt }, formatTime(approval.expiresAt))],
      ['Approval id', h('code', null, approval.approvalId)]
    ]),
    h('p', { class: 'label' }, 'Arguments'),
    h('pre', { class: 'json', tabindex: '0', 'aria-label': `Arguments of ${what}` }, pretty(approval.arguments)),
    h('div', { class: 'field' }, h('label', { for: reasonId }, `Reason for ${what}`), reason),
    h('div', { class: 'actions' }, button('approve', 'Approve'), button('deny', 'Deny')))
}

function changeRows (changes) {
  return (changes ?? []).map((change) => [
    change.field,
    h('pre', { class: 'json old' }, pretty(change.old ?? null)),
    h('pre', { class: 'json new' }, pretty(change.new ?? null))
  ])
}

function heldItem (tool, approveDefinition) {
  const trust = tool.trust
  const button = h('button', { type: 'button', class: 'approve' }, `Approve definition of ${tool.name}`)
  button.addEventListener('click', () => approveDefinition(tool.name))
  return h('li', { class: 'card' },
    h('h3', null, tool.name),
    definitions([
      ['Why it is held', trust.reason ?? tool.reason ?? 'held until an operator approves it'],
      ['Findings', trust.findings?.length > 0 ? trust.findings.join('; ') : 'none'],
      ['Digest now', h('code', null, trust.digest)]
    ]),
    trust.changes?.length > 0
      ? table(`What changed in ${tool.name}`, ['Field', 'Pinned (approved)', 'Listed now'], changeRows(trust.changes))
      : h('p', null, 'No change is listed: it is new, or held for its findings.'),
    h('div', { class: 'actions' }, button))
}

export function render (ctx) {
  const view = startView(ctx, 'Approvals and pins')
  const messages = h('div', { class: 'messages' })
  const pendingList = h('div')
  const heldList = h('div')
  const say = (role, text) => messages.replaceChildren(notice(role, text))
  const refreshButton = h('button', { type: 'button' }, 'Refresh')

  const load = async () => {
    view.loading()
    try {
      const [{ approvals }, tools] = await Promise.all([
        getJson('../admin/approvals', { signal: ctx.signal }),
        getJson('../tools', { signal: ctx.signal })
      ])
      pendingList.replaceChildren(approvals.length === 0
        ? h('p', null, 'No call is waiting for approval.')
        : h('ul', { class: 'cards' }, approvals.map((approval, index) => approvalItem(approval, index, decide))))
      const held = tools.tools.filter((tool) => tool.trust?.held)
      heldList.replaceChildren(held.length === 0
        ? h('p', null, 'No tool definition is held.')
        : h('ul', { class: 'cards' }, held.map((tool) => heldItem(tool, approveDefinition))))
      view.done()
    } catch (error) {
      view.fail(error)
    }
  }

  async function decide (approval, decision, reason, what) {
    try {
      const body = reason === '' ? { decision } : { decision, reason }
      await postJson(`../admin/approvals/${encodeURIComponent(approval.approvalId)}`, body)
      say('status', `${decision === 'approve' ? 'Approved' : 'Denied'} ${what}`)
    } catch (error) {
      say('alert', `Could not decide ${what}: ${describeError(error)}`)
    }
    await load()
  }

  async function approveDefinition (name) {
    try {
      await postJson(`../admin/tools/${encodeURIComponent(name)}/approve`)
      say('status', `Approved the definition of ${name}; it is served again`)
    } catch (error) {
      say('alert', `Could not approve the definition of ${name}: ${describeError(error)}`)
    }
    await load()
  }

  refreshButton.addEventListener('click', load)
  view.body.replaceChildren(
    h('div', { class: 'toolbar' }, refreshButton),
    messages,
    h('section', { 'aria-labelledby': 'pending-heading' }, h('h2', { id: 'pending-heading' }, 'Calls waiting for approval'), pendingList),
    h('section', { 'aria-labelledby': 'held-heading' }, h('h2', { id: 'held-heading' }, 'Held tool definitions'), heldList))
  load()
}
