// Authentication: API keys, and access tokens of the identity provider when auth.oauth is set
// (src/auth/). Keys are configured as SHA-256 digests (or read from named environment variables and
// digested at boot), so the gateway never keeps a key it does not need. A presented key is digested
// and compared with every configured digest in constant time; a bearer credential that is no key is
// then checked as a token. A key or token may be limited to toolsets: outside them the caller sees
// nothing, and a dispatch answers 404 as for a tool that does not exist. Wrong credentials are
// limited per client address (auth-failures.ts); a request without any, or with a genuine token
// that is expired or meant elsewhere, is refused but not counted.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Principal } from '../access/principal.ts'
import type { GatewayConfig, OAuthConfig } from '../config/schema.ts'
import { IdentityProviderUnavailableError, InsufficientScopeError, OperatorRequiredError, RateLimitedError, UnauthorizedError } from '../shared/errors.ts'
import { bearerChallenge, type ChallengeError } from '../auth/challenge.ts'
import type { SignInRefusal, TokenSignIn } from '../auth/token-sign-in.ts'
import type { CallerIdentity } from '../registry/types.ts'
import { isGuarded } from '../config/protected-mode.ts'
import { AuthFailures } from './auth-failures.ts'

interface KnownKey {
  readonly name: string
  readonly digest: Buffer
  /** What authenticate answers for this key: one object per key, kept across reloads that leave the key as it was. */
  readonly principal: Principal
}

declare module 'fastify' {
  interface FastifyInstance {
    authenticator: Authenticator
  }
  interface FastifyRequest {
    /** Who is calling; undefined on an open gateway (no keys configured) and on public routes. */
    principal?: Principal
    /** The signed-in user, for a request that came with an access token (not an API key). */
    identity: CallerIdentity | undefined
  }
  interface FastifyContextConfig {
    /** Routes open to anyone even when keys are configured (health, readiness). */
    public?: boolean
    /** Routes for operators: a key limited to toolsets is refused (metrics name every tool). */
    operatorOnly?: boolean
  }
}

export type { Principal }

const ANONYMOUS: Principal = Object.freeze({ name: 'anonymous' })

function digest (key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest()
}

export interface Authenticator {
  /** Whether callers must present a key or a token (else the gateway is open). */
  readonly enabled: boolean
  /** Sign-in with access tokens (auth.oauth); undefined when not configured. */
  readonly tokens: TokenSignIn | undefined
  /** The principal for a request, or undefined when its key is missing or wrong. */
  authenticate: (authorization: string | undefined) => Principal | undefined
  /** Serves the keys of a reloaded configuration (their digests, names and toolsets) from now on. */
  replaceKeys: (config: GatewayConfig) => void
  /** Whether `principal` still is one a configured key gives: false once a reload removed or changed its key. */
  isCurrent: (principal: Principal) => boolean
  /** Calls `listener` after each replaceKeys (to end what revoked keys hold open); returns the unsubscribe. */
  onKeysReplaced: (listener: () => void) => () => void
}

function sameToolsets (a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.length === b.length && a.every((toolset, i) => toolset === b[i])
}

/** The configured keys; one that `before` had already, same name, secret and toolsets, keeps its principal. */
function knownKeys (config: GatewayConfig, env: NodeJS.ProcessEnv, before: readonly KnownKey[] = []): KnownKey[] {
  return config.auth.keys.map((key) => {
    // loadConfig has checked that exactly one of sha256 / env is set and that the variable exists.
    const keyDigest = key.sha256 !== undefined ? Buffer.from(key.sha256, 'hex') : digest(env[key.env as string] ?? '')
    const kept = before.find((old) => old.name === key.name && old.digest.equals(keyDigest) && sameToolsets(old.principal.toolsets, key.toolsets))
    return kept ?? { name: key.name, digest: keyDigest, principal: Object.freeze({ name: key.name, toolsets: key.toolsets }) }
  })
}

export function createAuthenticator (config: GatewayConfig, env: NodeJS.ProcessEnv = process.env, tokens?: TokenSignIn): Authenticator {
  let keys = knownKeys(config, env)
  const enabled = isGuarded(config)
  const listeners = new Set<() => void>()
  return {
    enabled,
    tokens,
    authenticate (authorization) {
      if (!enabled) return ANONYMOUS
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')
      if (match === null) return undefined
      const presented = digest(match[1])
      let found: KnownKey | undefined
      // Compare with every key, without stopping early, so timing says nothing about which matched.
      for (const key of keys) {
        if (timingSafeEqual(presented, key.digest) && found === undefined) found = key
      }
      return found?.principal
    },
    replaceKeys (next) {
      const replacement = knownKeys(next, env, keys)
      // Open stays open and guarded stays guarded: the hook that checks keys is installed at start.
      if (isGuarded(next) !== enabled) throw new Error('switching between an open gateway and one with keys needs a restart')
      keys = replacement
      for (const listener of listeners) listener()
    },
    isCurrent (principal) {
      // A user's standing comes from the provider, not from the keys a reload replaces: its token's expiry ends it.
      return principal === ANONYMOUS || principal.kind === 'user' || keys.some((key) => key.principal === principal)
    },
    onKeysReplaced (listener) {
      listeners.add(listener)
      return () => { listeners.delete(listener) }
    }
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i

/** What a refused request is told, and the challenge it carries (RFC 6750, RFC 9728). */
function refuse (request: FastifyRequest, reply: FastifyReply, oauth: OAuthConfig | undefined, error: Error, challenge?: ChallengeError): Error {
  reply.header('www-authenticate', bearerChallenge(oauth, request.url, challenge))
  return error
}

/** The error a refused token is answered with; a credential that never was a token counts as a failed login. */
function refusalOf (request: FastifyRequest, reply: FastifyReply, refusal: SignInRefusal, oauth: OAuthConfig | undefined, failures: AuthFailures): Error {
  const { status, description, guess } = refusal
  if (guess) failures.record(request.ip)
  if (status === 503) {
    reply.header('retry-after', '5')
    return new IdentityProviderUnavailableError(description)
  }
  if (status === 403) return refuse(request, reply, oauth, new InsufficientScopeError(description), { error: 'insufficient_scope', description })
  return refuse(request, reply, oauth, new UnauthorizedError(`the access token was refused: ${description}`), { error: 'invalid_token', description })
}

function authHook (authenticator: Authenticator, failures: AuthFailures) {
  const { tokens } = authenticator
  const oauth = tokens?.config
  const missing = oauth === undefined
    ? 'a valid API key is required: send Authorization: Bearer <key>'
    : `sign in: send an access token of ${oauth.issuer} for ${oauth.resource} (or an API key) as Authorization: Bearer <token>`
  // A callback hook, not an async one: it runs on every request, and answers a key at once.
  return function authenticate (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void {
    // Read once: request.routeOptions builds a new object on every read.
    const route = request.routeOptions.config
    if (route?.public) {
      done()
      return
    }
    // Checked before the key, and whatever the key: answering a right key here would tell a
    // guesser when it found one.
    const wait = failures.retryAfterSeconds(request.ip)
    if (wait > 0) {
      reply.header('retry-after', String(wait))
      done(new RateLimitedError(`too many failed authentications from this address; retry in ${wait} s`))
      return
    }
    const authorization = request.headers.authorization
    const accept = (principal: Principal, token?: string): void => {
      if (route?.operatorOnly === true && !(principal.operator ?? principal.toolsets === undefined)) {
        done(new OperatorRequiredError(`this route needs an operator: a key not limited to toolsets${oauth?.adminScope === undefined ? ' or a token for every toolset' : `, or a token with the scope ${oauth.adminScope}`}`))
        return
      }
      request.principal = principal
      if (token !== undefined && tokens !== undefined) request.identity = tokens.identityOf(principal, token)
      done()
    }
    const principal = authenticator.authenticate(authorization)
    if (principal !== undefined) {
      accept(principal)
      return
    }
    const token = tokens === undefined ? undefined : BEARER.exec(authorization ?? '')?.[1]
    if (tokens !== undefined && token !== undefined) {
      tokens.signIn(token).then((signedIn) => {
        if ('principal' in signedIn) accept(signedIn.principal, token)
        else done(refusalOf(request, reply, signedIn.refusal, oauth, failures))
      }, (err: unknown) => { done(err as Error) })
      return
    }
    // Only a presented credential that is wrong is a guess; a request without one (a client's
    // first probe, a browser) is told what to send and costs the address nothing.
    if (authorization !== undefined) failures.record(request.ip)
    done(refuse(request, reply, oauth, new UnauthorizedError(missing)))
  }
}

/** Decorates `app.authenticator` and, when keys are configured, checks every non-public request. */
// Not `export default fp(...)`: TypeScript 6.0 leaves the `.ts` of a dynamic import inside an
// `export default` expression as it is, and the compiled build could not load the module.
const authPlugin = fp<{ config: GatewayConfig, env?: NodeJS.ProcessEnv }>(async function auth (app, options) {
  const oauth = options.config.auth.oauth
  // jose and oauth4webapi load only for a gateway that signs users in.
  const tokens = oauth === undefined ? undefined : new (await import('../auth/token-sign-in.ts')).TokenSignIn(oauth)
  const authenticator = createAuthenticator(options.config, options.env, tokens)
  app.decorate('authenticator', authenticator)
  app.decorateRequest('principal', undefined)
  app.decorateRequest('identity', undefined)
  if (!authenticator.enabled) return
  // With Redis, the replicas count an address's failures together (loaded only then).
  const shared = app.redis === undefined ? undefined : (await import('../shared-state/redis-failure-counter.ts')).redisFailureCounter(app.redis)
  app.addHook('onRequest', authHook(authenticator, new AuthFailures({ ...options.config.http.authFailures, shared })))
}, { name: 'auth', dependencies: ['shared-state'] })

export default authPlugin
