// GET /toolsets: every toolset with its resolved members, includes, aliases and availability.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ToolsetList, toolsetsReport } from '../src/reports/toolsets.ts'

const toolsetsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/toolsets', {
    schema: {
      summary: 'Toolsets with resolved members, includes, aliases, availability',
      tags: ['operators'],
      response: { 200: ToolsetList }
    }
  }, async (request) => toolsetsReport(app.gateway, request.scope))
}

export default toolsetsRoutes
