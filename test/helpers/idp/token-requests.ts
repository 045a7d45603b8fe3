// Client-side requests to the test identity provider's endpoints, as a gateway or an agent makes them:
// form posts with client_secret_basic (RFC 6749 §2.3.1), answers read as JSON whatever the status.
import type { ClientCredentials } from './state.ts'

export interface OAuthAnswer {
  readonly status: number
  readonly body: Record<string, unknown>
}

export interface TokenResponse {
  readonly access_token: string
  readonly token_type: string
  readonly expires_in?: number
  readonly scope?: string
  readonly refresh_token?: string
  readonly id_token?: string
  readonly issued_token_type?: string
}

export function basicAuth (client: ClientCredentials): string {
  // Both halves are form-urlencoded before base64 (RFC 6749 §2.3.1).
  const encode = (value: string): string => encodeURIComponent(value).replaceAll('%20', '+')
  return `Basic ${Buffer.from(`${encode(client.id)}:${encode(client.secret)}`).toString('base64')}`
}

export async function postForm (url: string, params: Record<string, string>, client?: ClientCredentials, timeoutMs = 5000): Promise<OAuthAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' }
  if (client !== undefined) headers.authorization = basicAuth(client)
  const response = await fetch(url, { method: 'POST', headers, body: new URLSearchParams(params), signal: AbortSignal.timeout(timeoutMs) })
  const text = await response.text()
  return { status: response.status, body: text === '' ? {} : JSON.parse(text) as Record<string, unknown> }
}

/** A token endpoint answer that must be a success; otherwise throws with the provider's error. */
export function tokenFrom (answer: OAuthAnswer): TokenResponse {
  if (answer.status !== 200 || typeof answer.body.access_token !== 'string') {
    throw new Error(`token request refused (HTTP ${answer.status}): ${JSON.stringify(answer.body)}`)
  }
  return answer.body as unknown as TokenResponse
}

export async function registerClient (url: string, metadata: Record<string, unknown>, timeoutMs = 5000): Promise<OAuthAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(metadata),
    signal: AbortSignal.timeout(timeoutMs)
  })
  return { status: response.status, body: await response.json() as Record<string, unknown> }
}
