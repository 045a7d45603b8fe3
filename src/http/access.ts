// Key scoping at the edge: every request carries `request.scope`, what its caller may see and call
// (src/access/key-scope.ts). Built on first read, after authentication has set the principal.
import fp from 'fastify-plugin'
import { KeyScope } from '../access/key-scope.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** What the caller may see and call. */
    readonly scope: KeyScope
  }
}

export default fp(async function access (app) {
  // Every caller whose key is not limited shares one scope: no object per request on the hot path.
  const unlimited = new KeyScope(app.gateway, undefined)
  app.decorateRequest('scope', {
    getter () {
      return this.principal?.toolsets === undefined ? unlimited : new KeyScope(app.gateway, this.principal)
    }
  })
}, { name: 'access', dependencies: ['auth'] })
