// The test identity provider's login and consent pages, answered without a person: the login signs in
// the account the test named (the x-test-account header its browserless client sends, the
// request's login_hint, or the default), consent grants what that account may have and refuses the
// rest, and x-test-consent: deny ends the flow with access_denied, as a user pressing "Cancel".
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { InteractionDetails, Provider } from 'oidc-provider'
import { grantableScopes, type IdpState } from './state.ts'

export const ACCOUNT_HEADER = 'x-test-account'
export const CONSENT_HEADER = 'x-test-consent'

function chosenAccount (state: IdpState, req: IncomingMessage, details: InteractionDetails): string {
  const header = req.headers[ACCOUNT_HEADER]
  if (typeof header === 'string') return header
  const hint = details.params.login_hint
  return typeof hint === 'string' ? hint : state.loginAs
}

async function consent (state: IdpState, provider: Provider, details: InteractionDetails): Promise<string> {
  const accountId = details.session?.accountId
  const clientId = details.params.client_id
  if (accountId === undefined || typeof clientId !== 'string') throw new Error('consent without a signed-in account or client')
  const grant = (details.grantId === undefined ? undefined : await provider.Grant.find(details.grantId)) ??
    new provider.Grant({ accountId, clientId })
  const { missingOIDCScope = [], missingOIDCClaims = [], missingResourceScopes = {} } = details.prompt.details
  // Resource scopes are also "OIDC scopes" here (they are in the provider's scope list): same rule.
  const toolScopes = missingOIDCScope.filter((scope) => state.scopes.includes(scope))
  const granted = new Set([...missingOIDCScope.filter((scope) => !toolScopes.includes(scope)), ...grantableScopes(state, accountId, toolScopes)])
  const refused = missingOIDCScope.filter((scope) => !granted.has(scope))
  if (granted.size > 0) grant.addOIDCScope([...granted].join(' '))
  // Refused scopes are recorded as such, or the provider would ask for consent again and again.
  if (refused.length > 0) grant.rejectOIDCScope(refused.join(' '))
  if (missingOIDCClaims.length > 0) grant.addOIDCClaims(missingOIDCClaims)
  for (const [indicator, scopes] of Object.entries(missingResourceScopes)) {
    const allowed = grantableScopes(state, accountId, scopes)
    if (allowed.length > 0) grant.addResourceScope(indicator, allowed.join(' '))
    const denied = scopes.filter((scope) => !allowed.includes(scope))
    if (denied.length > 0) grant.rejectResourceScope(indicator, denied.join(' '))
  }
  return await grant.save()
}

async function answer (state: IdpState, provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res)
  if (req.headers[CONSENT_HEADER] === 'deny') {
    return await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'the test user refused' })
  }
  if (details.prompt.name === 'login') {
    const accountId = chosenAccount(state, req, details)
    if (!state.accounts.has(accountId)) {
      return await provider.interactionFinished(req, res, { error: 'access_denied', error_description: `no account ${accountId}` })
    }
    return await provider.interactionFinished(req, res, { login: { accountId } }, { mergeWithLastSubmission: false })
  }
  if (details.prompt.name === 'consent') {
    const grantId = await consent(state, provider, details)
    return await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true })
  }
  throw new Error(`unexpected interaction prompt ${details.prompt.name}`)
}

/** Handles GET /interaction/:uid on the provider's own server. */
export async function answerInteraction (state: IdpState, provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    await answer(state, provider, req, res)
  } catch (error) {
    state.serverErrors.push(error as Error)
    if (res.headersSent) return
    res.writeHead(400, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ error: 'interaction_failed', error_description: (error as Error).message }))
  }
}
