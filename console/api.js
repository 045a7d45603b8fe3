// The gateway's API as the console calls it: relative URLs (the page is at /console/), the
// credential (an API key or an access token) from sessionStorage as a Bearer header, and the
// gateway's error body turned into a readable message. The credential is never rendered nor put
// in a URL.

const STORAGE_KEY = 'gateway-console.credential'
let onUnauthorized = () => {}

export function credential () {
  return sessionStorage.getItem(STORAGE_KEY)
}

export function setCredential (value) {
  sessionStorage.setItem(STORAGE_KEY, value)
}

export function clearCredential () {
  sessionStorage.removeItem(STORAGE_KEY)
}

/** What to do when a signed-in request is refused with 401 (the credential expired or was revoked). */
export function whenUnauthorized (handler) {
  onUnauthorized = handler
}

/** An answer that is not a success, with the gateway's code and message. */
export class ApiError extends Error {
  constructor (status, code, message) {
    super(message)
    this.status = status
    this.code = code
  }

  /** The text to show: the gateway's message, its code and the HTTP status. */
  get readable () {
    const code = this.code ? `${this.code}, ` : ''
    return `${this.message} (${code}HTTP ${this.status})`
  }
}

function errorOf (status, body) {
  const error = body && typeof body === 'object' ? body.error : undefined
  if (error && typeof error === 'object') return new ApiError(status, error.code, error.message ?? 'The gateway refused the request')
  if (typeof error === 'string') return new ApiError(status, undefined, error)
  if (status === 0) return new ApiError(0, undefined, 'The gateway could not be reached')
  return new ApiError(status, undefined, `The gateway answered HTTP ${status}`)
}

async function bodyOf (response) {
  const text = await response.text()
  if (text === '') return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/**
 * Sends a request and answers { status, body } whatever the status (dispatch answers its envelope
 * on errors too). `key` overrides the stored credential; `anonymous` sends none.
 */
export async function request (path, { method = 'GET', body, key, anonymous = false, signal } = {}) {
  const headers = { Accept: 'application/json' }
  const bearer = anonymous ? null : (key ?? credential())
  if (bearer) headers.Authorization = `Bearer ${bearer}`
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  let response
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal, cache: 'no-store' })
  } catch (error) {
    if (error?.name === 'AbortError') throw error
    throw new ApiError(0, undefined, 'The gateway could not be reached')
  }
  const parsed = await bodyOf(response)
  if (response.status === 401 && bearer && key === undefined) onUnauthorized()
  return { status: response.status, body: parsed }
}

/** GET (or another method) that answers the body of a 2xx and throws an ApiError otherwise. */
export async function getJson (path, options) {
  const { status, body } = await request(path, options)
  if (status < 200 || status >= 300) throw errorOf(status, body)
  return body
}

export function postJson (path, body, options = {}) {
  return getJson(path, { ...options, method: 'POST', body })
}

export { errorOf }

/** The readable text of any failure. */
export function describeError (error) {
  if (error instanceof ApiError) return error.readable
  return error?.message ?? String(error)
}
