// Signing in: an API key typed into a form, or the authorization code flow with PKCE (S256) against
// the identity provider the gateway trusts, as a public client (no secret), with oauth4webapi (which
// the gateway serves from its own dependency). The key or access token is kept in sessionStorage
// (gone when the tab closes), never rendered and never put in a URL.
import { h, notice } from './dom.js'
import { request, setCredential } from './api.js'

const PENDING_KEY = 'gateway-console.oauth-pending'

/** Loaded only to sign in with the provider: a page opened with an API key never fetches it. */
async function oauthClient () {
  return await import('./vendor/oauth4webapi.js')
}
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]'])

function redirectUri () {
  return `${location.origin}/console/`
}

/** The provider as oauth4webapi takes it, from what config.json says. */
function serverOf (oauth) {
  return { issuer: oauth.issuer, authorization_endpoint: oauth.authorizationEndpoint, token_endpoint: oauth.tokenEndpoint }
}

/** Plain HTTP only to a provider on this machine (a test's, a developer's): https everywhere else. */
function requestOptions (oauth4, oauth) {
  const url = new URL(oauth.tokenEndpoint)
  const insecure = url.protocol === 'http:' && LOOPBACK.has(url.hostname)
  return { additionalParameters: oauth.resource ? { resource: oauth.resource } : {}, ...(insecure ? { [oauth4.allowInsecureRequests]: true } : {}) }
}

/** Sends the browser to the identity provider's authorization endpoint (code flow, PKCE S256). */
export async function beginOAuth (oauth) {
  const oauth4 = await oauthClient()
  const verifier = oauth4.generateRandomCodeVerifier()
  const state = oauth4.generateRandomState()
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ state, verifier, hash: location.hash }))
  const url = new URL(oauth.authorizationEndpoint)
  url.searchParams.set('response_type', 'code')
  url.searchParams.set('client_id', oauth.clientId)
  url.searchParams.set('redirect_uri', redirectUri())
  url.searchParams.set('scope', (oauth.scopes ?? []).join(' '))
  url.searchParams.set('state', state)
  url.searchParams.set('code_challenge', await oauth4.calculatePKCECodeChallenge(verifier))
  url.searchParams.set('code_challenge_method', 'S256')
  if (oauth.resource) url.searchParams.set('resource', oauth.resource)
  location.assign(url.toString())
}

/** The code exchanged at the token endpoint as a public client; the access token. */
async function exchangeCode (oauth4, oauth, params, verifier) {
  const server = serverOf(oauth)
  const client = { client_id: oauth.clientId }
  let response
  try {
    response = await oauth4.authorizationCodeGrantRequest(server, client, oauth4.None(), params, redirectUri(), verifier, requestOptions(oauth4, oauth))
  } catch (error) {
    throw new Error(`The identity provider could not be reached to finish signing in (${error.message})`)
  }
  try {
    return (await oauth4.processAuthorizationCodeResponse(server, client, response)).access_token
  } catch (error) {
    throw new Error(`The identity provider did not give an access token: ${error.error_description ?? error.error ?? error.message}`)
  }
}

/**
 * Finishes a sign-in when the identity provider sent the browser back here with ?code= (or
 * ?error=): checks the state and the issuer (RFC 9207), exchanges the code, keeps the token, and
 * takes the code out of the address bar. Answers false when this load is not such a return;
 * throws a readable Error.
 */
export async function completeOAuth (oauth) {
  const params = new URLSearchParams(location.search)
  if (!params.has('code') && !params.has('error')) return false
  const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null')
  sessionStorage.removeItem(PENDING_KEY)
  history.replaceState(null, '', `${location.pathname}${pending?.hash ?? ''}`)
  if (params.has('error')) throw new Error(`The identity provider refused the sign-in: ${params.get('error_description') ?? params.get('error')}`)
  if (!oauth) throw new Error('This gateway does not accept sign-in with an identity provider')
  if (!pending) throw new Error('The sign-in answer did not match a request of this tab; sign in again')
  const oauth4 = await oauthClient()
  let checked
  try {
    checked = oauth4.validateAuthResponse(serverOf(oauth), { client_id: oauth.clientId }, params, pending.state)
  } catch (error) {
    throw new Error(`The sign-in answer did not match the request (${error.message}); sign in again`)
  }
  setCredential(await exchangeCode(oauth4, oauth, checked, pending.verifier))
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
