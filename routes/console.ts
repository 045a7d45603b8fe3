// The operator console (docs/console.md): a page of plain ES modules in console/, served as they
// are, and what it needs to sign a person in. Public: the files hold no secret, and every API call
// the page makes carries its user's own key or token. Every answer here carries the console's
// strict security headers (src/console/headers.ts); HEAD twins are added by Fastify.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { consoleClientConfig, consoleSignIn } from '../src/console/client-config.ts'
import { ConsoleFiles, consolePath } from '../src/console/files.ts'
import { consoleHeaders, NO_PROVIDER, type ProviderOrigins } from '../src/console/headers.ts'
import { NotFoundError } from '../src/shared/errors.ts'

const ConsoleOAuth = Type.Object({
  issuer: Type.String({ description: 'The identity provider\'s issuer URL.' }),
  clientId: Type.String({ description: 'The console\'s public client at the provider (auth.oauth.consoleClientId).' }),
  scopes: Type.Array(Type.String(), { description: 'The scopes the gateway maps to toolsets (auth.oauth.scopes).' }),
  resource: Type.String({ description: 'This gateway as a protected resource: the `resource` to ask a token for (RFC 8707).' }),
  authorizationEndpoint: Type.String({ description: 'Where the browser is sent to sign in (authorization code with PKCE).' }),
  tokenEndpoint: Type.String({ description: 'Where the page exchanges the code for a token.' })
}, { additionalProperties: false })

const ConsoleConfig = Type.Object({
  auth: Type.Object({
    keys: Type.Boolean({ description: 'Whether API keys are configured: the page may ask for one.' }),
    open: Type.Boolean({ description: 'True on an open gateway (no keys, no sign-in): the page needs no credential.' }),
    oauth: Type.Union([ConsoleOAuth, Type.Null()], { description: 'Sign-in with the identity provider; null without auth.oauth.consoleClientId, or while its metadata cannot be had (see oauthError).' })
  }, { description: 'How a person may sign in.' }),
  oauthError: Type.Optional(Type.String({ description: 'Why oauth is null although a console client is configured: the provider\'s metadata could not be fetched now.' })),
  version: Type.String({ description: 'The gateway\'s version.' })
}, { description: 'What the console page needs to sign a person in; never a secret.' })

const hidden = { hide: true }

/** Whether `If-None-Match` names `etag` (a list, weak or strong, or `*`). */
function matches (ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim()
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag
  })
}

const consoleRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const files = new ConsoleFiles()
  // The provider's origins as last learnt; a page (HTML) asks again before it is answered, so its
  // policy names the token endpoint as soon as the provider's metadata can be had.
  let origins: ProviderOrigins = NO_PROVIDER
  const signIn = async (): Promise<Awaited<ReturnType<typeof consoleSignIn>>> => {
    const answer = await consoleSignIn(app.authenticator.tokens)
    origins = answer.origins
    return answer
  }
  // Scoped to this file's routes (autoload encapsulates each route file): errors answered here too.
  app.addHook('onSend', async (_request, reply) => {
    if (String(reply.getHeader('content-type') ?? '').startsWith('text/html')) await signIn()
    reply.headers(consoleHeaders(origins))
  })

  const serve = async (request: FastifyRequest, reply: FastifyReply, wildcard: string): Promise<FastifyReply> => {
    const relative = consolePath(wildcard, request.url)
    const file = relative === undefined ? undefined : await files.get(relative)
    if (file === undefined) throw new NotFoundError(`no console file ${request.url.split('?')[0]}`)
    reply.header('etag', file.etag).type(file.contentType)
    if (matches(request.headers['if-none-match'], file.etag)) return await reply.code(304).send()
    return await reply.send(file.body)
  }

  app.get('/console', { config: { public: true }, schema: hidden }, async (request, reply) => {
    const query = request.url.indexOf('?')
    return await reply.redirect(`/console/${query === -1 ? '' : request.url.slice(query)}`, 308)
  })

  app.get('/console/config.json', {
    config: { public: true },
    schema: {
      summary: 'What the operator console needs to sign a person in (no secret)',
      tags: ['console'],
      response: { 200: ConsoleConfig }
    }
  }, async () => {
    const { authenticator } = app
    return consoleClientConfig(await signIn(), app.gateway.config.auth.keys.length > 0, !authenticator.enabled)
  })

  app.get('/console/', { config: { public: true }, schema: hidden }, async (request, reply) => await serve(request, reply, ''))
  app.get<{ Params: { '*': string } }>('/console/*', { config: { public: true }, schema: hidden }, async (request, reply) => await serve(request, reply, request.params['*']))
}

export default consoleRoutes
