// The console's entry: reads config.json, signs the user in when the gateway asks for it, decides
// whether the caller is an operator, then routes #/<view> to the views. Each view renders into
// <main>; leaving it stops its timers and aborts its requests.
import { clearCredential, credential, describeError, getJson, request, whenUnauthorized } from './api.js'
import { completeOAuth, renderSignIn } from './auth.js'
import { h, notice } from './dom.js'
import * as toolsView from './views/tools.js'
import * as toolView from './views/tool.js'
import * as serversView from './views/servers.js'
import * as toolsetsView from './views/toolsets.js'
import * as callsView from './views/calls.js'
import * as chartsView from './views/charts.js'
import * as approvalsView from './views/approvals.js'

const ROUTES = [
  { path: /^#\/tools\/(.+)$/, view: toolView, nav: '#/tools' },
  { path: /^#\/servers\/?$/, view: serversView, nav: '#/servers' },
  { path: /^#\/toolsets\/?$/, view: toolsetsView, nav: '#/toolsets' },
  { path: /^#\/calls\/?$/, view: callsView, nav: '#/calls', operatorOnly: 'Calls' },
  { path: /^#\/charts\/?$/, view: chartsView, nav: '#/charts' },
  { path: /^#\/approvals\/?$/, view: approvalsView, nav: '#/approvals', operatorOnly: 'Approvals and pins' },
  { path: /^/, view: toolsView, nav: '#/tools' }
]

const main = document.getElementById('main')
const nav = document.getElementById('nav')
const signOut = document.getElementById('sign-out')
const state = { config: null, operator: false, signedIn: false, current: null }

function teardown () {
  if (state.current === null) return
  state.current.controller.abort()
  for (const timer of state.current.timers) clearInterval(timer)
  state.current = null
}

function context () {
  const controller = new AbortController()
  const timers = []
  state.current = { controller, timers }
  return {
    main,
    signal: controller.signal,
    operator: state.operator,
    config: state.config,
    every (ms, fn) { timers.push(setInterval(fn, ms)) }
  }
}

function markNav (target) {
  for (const link of nav.querySelectorAll('a')) {
    if (link.getAttribute('href') === target) link.setAttribute('aria-current', 'page')
    else link.removeAttribute('aria-current')
  }
}

function route () {
  if (!state.signedIn) return
  teardown()
  const hash = location.hash
  const match = ROUTES.find((candidate) => candidate.path.test(hash))
  markNav(match.nav)
  const ctx = context()
  if (match.operatorOnly && !state.operator) {
    main.replaceChildren(h('h1', { tabindex: '-1' }, match.operatorOnly), notice('alert', 'Only operators see this page: an API key not limited to toolsets, or a token with the gateway\'s admin scope.'))
  } else {
    const param = hash.match(match.path)[1]
    match.view.render(ctx, param === undefined ? undefined : decodeURIComponent(param))
  }
  main.querySelector('h1')?.focus()
}

function showSignIn (error) {
  teardown()
  state.signedIn = false
  nav.hidden = true
  signOut.hidden = true
  renderSignIn(main, state.config, { onSignedIn: () => start(), error })
}

function showFailure (message) {
  const retry = h('button', { type: 'button' }, 'Try again')
  retry.addEventListener('click', () => start())
  main.replaceChildren(h('h1', { tabindex: '-1' }, 'The console could not start'), notice('alert', message), retry)
  main.querySelector('h1').focus()
}

async function start (oauthError) {
  teardown()
  const key = credential()
  // A gateway that says it needs a credential is not asked without one (a 401 the browser would log).
  if (!key && state.config.auth?.open === false) return showSignIn(oauthError)
  const probe = await request('../tools', key ? { key } : { anonymous: true }).catch((error) => ({ status: 0, error }))
  if (probe.status === 401) {
    if (key) clearCredential()
    return showSignIn(oauthError ?? (key ? 'Your sign-in was refused or has expired; sign in again' : undefined))
  }
  if (probe.status !== 200) return showFailure(probe.error ? describeError(probe.error) : `The gateway answered HTTP ${probe.status} for its tools`)
  // An operator-only route that reads nothing recorded: a read of the audit trail is itself an audit line.
  const operatorProbe = await request('../admin/approvals').catch(() => ({ status: 0 }))
  state.operator = operatorProbe.status === 200
  state.signedIn = true
  for (const item of nav.querySelectorAll('[data-operator]')) item.hidden = !state.operator
  nav.hidden = false
  signOut.hidden = credential() === null
  route()
}

async function boot () {
  state.config = await getJson('config.json', { anonymous: true }).catch(() => ({ auth: { keys: true, oauth: null }, version: null }))
  if (state.config.version) document.getElementById('version').textContent = `Version ${state.config.version}`
  let oauthError
  try {
    await completeOAuth(state.config.auth?.oauth ?? null)
  } catch (error) {
    oauthError = error.message
  }
  await start(oauthError)
}

whenUnauthorized(() => {
  clearCredential()
  showSignIn('Your sign-in was refused or has expired; sign in again')
})

signOut.addEventListener('click', () => {
  clearCredential()
  start()
})

document.querySelector('.skip-link').addEventListener('click', (event) => {
  event.preventDefault()
  ;(main.querySelector('h1') ?? main).focus()
})

window.addEventListener('hashchange', route)
boot()
