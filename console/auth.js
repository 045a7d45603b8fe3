// Signing in: an API key typed into a form, or the authorization code flow with PKCE (S256) against
// the identity provider the gateway trusts, as a public client (no secret). The key or access token
// is kept in sessionStorage (gone when the tab closes), never rendered and never put in a URL.
import { h, notice } from './dom.js'
import { request, setCredential } from './api.js'

const PENDING_KEY = 'gateway-console.oauth-pending'

function base64url (bytes) {
  let text = ''
  for (const byte of new Uint8Array(bytes)) text += String.fromCharCode(byte)
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

function randomText (length) {
  return base64url(crypto.getRandomValues(new Uint8Array(length)))
}

function redirectUri () {
  return `${location.origin}/console/`
}

/** Sends the browser to the identity provider's authorization endpoint. */
export async function beginOAuth (oauth) {
  const verifier = randomText(32)
  const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)))
  const state = randomText(16)
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ state, verifier, hash: location.hash }))
  const url = new URL(oauth.authorizationEndpoint)
  url.searchParams.set('response_type', 'code')
  url.searchParams.set('client_id', oauth.clientId)
  url.searchParams.set('redirect_uri', redirectUri())
  url.searchParams.set('scope', (oauth.scopes ?? []).join(' '))
  url.searchParams.set('state', state)
  url.searchParams.set('code_challenge', challenge)
  url.searchParams.set('code_challenge_method', 'S256')
  if (oauth.resource) url.searchParams.set('resource', oauth.resource)
  location.assign(url.toString())
}

async function exchangeCode (oauth, code, verifier) {
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri(),
    client_id: oauth.clientId,
    code_verifier: verifier
  })
  if (oauth.resource) form.set('resource', oauth.resource)
  let response
  try {
    response = await fetch(oauth.tokenEndpoint, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' }, body: form })
  } catch {
    throw new Error('The identity provider could not be reached to finish signing in')
  }
  const body = await response.json().catch(() => ({}))
  if (!response.ok || typeof body.access_token !== 'string') {
    throw new Error(`The identity provider did not give an access token: ${body.error_description ?? body.error ?? `HTTP ${response.status}`}`)
  }
  return body.access_token
}

/**
 * Finishes a sign-in when the identity provider sent the browser back here with ?code= (or
 * ?error=): checks the state, exchanges the code, keeps the token, and takes the code out of the
 * address bar. Answers false when this load is not such a return; throws a readable Error.
 */
export async function completeOAuth (oauth) {
  const params = new URLSearchParams(location.search)
  if (!params.has('code') && !params.has('error')) return false
  const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null')
  sessionStorage.removeItem(PENDING_KEY)
  history.replaceState(null, '', `${location.pathname}${pending?.hash ?? ''}`)
  if (params.has('error')) throw new Error(`The identity provider refused the sign-in: ${params.get('error_description') ?? params.get('error')}`)
  if (!oauth) throw new Error('This gateway does not accept sign-in with an identity provider')
  if (!pending || params.get('state') !== pending.state) throw new Error('The sign-in answer did not match the request (state); sign in again')
  if (params.has('iss') && params.get('iss') !== oauth.issuer) throw new Error('The sign-in answer came from another issuer; sign in again')
  setCredential(await exchangeCode(oauth, params.get('code'), pending.verifier))
  return true
}

function keyForm (onSignedIn, showError) {
  const input = h('input', { id: 'api-key', name: 'api-key', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true })
  const form = h('form', { class: 'stack' },
    h('label', { for: 'api-key' }, 'API key'),
    input,
    h('button', { type: 'submit' }, 'Use key'))
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    const key = input.value.trim()
    if (key === '') return showError('Enter a key')
    showError(null)
    const { status } = await request('../tools', { key }).catch(() => ({ status: 0 }))
    if (status === 401) return showError('The key was refused')
    if (status === 429) return showError('Too many refused attempts from this address; wait a minute and try again')
    if (status !== 200) return showError(status === 0 ? 'The gateway could not be reached' : `The gateway answered HTTP ${status}`)
    input.value = ''
    setCredential(key)
    onSignedIn()
  })
  return form
}

/** The sign-in view: the key form (when keys are configured) and the identity provider's button. */
export function renderSignIn (main, config, { onSignedIn, error }) {
  const heading = h('h1', { tabindex: '-1' }, 'Sign in')
  const alerts = h('div', { class: 'alerts' })
  const showError = (text) => alerts.replaceChildren(text ? notice('alert', text) : '')
  const oauth = config?.auth?.oauth ?? null
  const keys = config?.auth?.keys ?? oauth === null
  const parts = [heading, h('p', null, 'The gateway needs to know who you are before it shows its tools.'), alerts]
  if (keys) parts.push(keyForm(onSignedIn, showError))
  if (!oauth && config?.oauthError) parts.push(notice('status', `Sign-in with the identity provider is not possible now: ${config.oauthError}`))
  if (oauth) {
    const button = h('button', { type: 'button', class: 'oauth' }, 'Sign in with your identity provider')
    button.addEventListener('click', () => beginOAuth(oauth).catch((e) => showError(e.message)))
    parts.push(h('div', { class: 'stack' }, keys ? h('p', null, 'Or:') : '', button))
  }
  main.replaceChildren(...parts)
  if (error) showError(error)
  heading.focus()
}
