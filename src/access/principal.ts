// Who a request comes from, as authentication found it: an API key, a signed-in user (an access
// token), or anyone on an open gateway.

export interface Principal {
  /** The key's name from config; `user:<sub>` for an access token; `anonymous` when the gateway is open. */
  name: string
  /** Toolsets the key or token may use; undefined = all. */
  toolsets?: readonly string[]
  /** `user` for a signed-in user (an access token); absent for an API key. */
  kind?: 'user'
  /** When the token it came from expires (ms since the epoch): what it holds open ends then. */
  expiresAt?: number
  /** A token that may use the admin routes (its scopes include auth.oauth.adminScope); keys need no flag: not limited to toolsets is enough. */
  operator?: boolean
}
