// The part of oidc-provider 9's API the test identity provider uses. The package ships no types
// (DefinitelyTyped has them, a second dependency for a test helper); these describe exactly what the
// harness relies on, so an upgrade that changes one of them fails tsc here.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'

  export type AdapterPayload = Record<string, unknown>

  export interface Adapter {
    upsert: (id: string, payload: AdapterPayload, expiresIn?: number) => Promise<void>
    find: (id: string) => Promise<AdapterPayload | undefined>
    findByUserCode: (userCode: string) => Promise<AdapterPayload | undefined>
    findByUid: (uid: string) => Promise<AdapterPayload | undefined>
    consume: (id: string) => Promise<void>
    destroy: (id: string) => Promise<void>
    revokeByGrantId: (grantId: string) => Promise<void>
  }

  export interface Client {
    readonly clientId: string
    readonly clientAuthMethod: string
    readonly scope?: string
  }

  export interface ResourceServerInfo {
    scope: string
    audience?: string
    accessTokenTTL?: number
    accessTokenFormat?: 'opaque' | 'jwt'
    jwt?: { sign?: { alg?: string, kid?: string } }
  }

  export class ResourceServer {
    constructor (identifier: string, info: ResourceServerInfo)
    readonly scope: string
    readonly accessTokenTTL?: number
    identifier (): string
  }

  export interface OIDCContext {
    readonly params: Record<string, string | string[] | undefined>
    readonly client?: Client
    entity: (name: string, value: unknown) => void
  }

  export interface KoaContext {
    readonly oidc: OIDCContext
    type: string
    body: unknown
    status: number
  }

  export interface AccessTokenInit {
    accountId?: string
    client?: Client
    scope?: string
    gty?: string
  }

  export class AccessToken {
    constructor (init: AccessTokenInit)
    readonly kind: string
    readonly accountId?: string
    readonly clientId: string
    readonly aud?: string | string[]
    readonly gty?: string
    scope?: string
    resourceServer?: ResourceServer
    readonly expiration: number
    readonly isValid: boolean
    save (): Promise<string>
    static find (value: string): Promise<AccessToken | undefined>
  }

  export class Grant {
    constructor (init: { accountId: string, clientId: string })
    addOIDCScope (scope: string): void
    rejectOIDCScope (scope: string): void
    addOIDCClaims (claims: string[]): void
    addResourceScope (resource: string, scope: string): void
    rejectResourceScope (resource: string, scope: string): void
    save (): Promise<string>
    static find (id: string): Promise<Grant | undefined>
  }

  export interface InteractionDetails {
    readonly uid: string
    readonly prompt: {
      readonly name: string
      readonly reasons: string[]
      readonly details: {
        missingOIDCScope?: string[]
        missingOIDCClaims?: string[]
        missingResourceScopes?: Record<string, string[]>
      }
    }
    readonly params: Record<string, unknown>
    readonly session?: { readonly accountId?: string }
    readonly grantId?: string
  }

  export interface InteractionResults {
    login?: { accountId: string }
    consent?: { grantId: string }
    error?: string
    error_description?: string
  }

  export type GrantTypeHandler = (ctx: KoaContext) => Promise<void>

  export class Provider {
    constructor (issuer: string, configuration: Record<string, unknown>)
    readonly issuer: string
    readonly AccessToken: typeof AccessToken
    readonly Grant: typeof Grant
    readonly ResourceServer: typeof ResourceServer
    callback (): (req: IncomingMessage, res: ServerResponse) => Promise<void>
    interactionDetails (req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>
    interactionFinished (req: IncomingMessage, res: ServerResponse, result: InteractionResults, options?: { mergeWithLastSubmission?: boolean }): Promise<void>
    registerGrantType (name: string, handler: GrantTypeHandler, parameters?: string[], allowedDuplicateParameters?: string[]): void
    on (event: 'server_error', listener: (ctx: KoaContext, error: Error) => void): this
  }

  // Constructors differ: most take the error_description; InvalidGrant takes only a detail that is
  // never sent (so the harness answers invalid_grant through CustomOIDCProviderError, with a reason).
  type OIDCError = new (description?: string, detail?: string) => Error
  export const errors: {
    readonly CustomOIDCProviderError: new (error: string, description: string) => Error
    readonly InvalidRequest: OIDCError
    readonly InvalidScope: OIDCError
    readonly InvalidTarget: OIDCError
    readonly UnauthorizedClient: OIDCError
  }

  export default Provider
}
