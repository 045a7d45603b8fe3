// GET /tools and GET /tools/:name: which tools work and which do not, with reasons, for operators.
// Always 200 for the list: it reports, it does not judge.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ToolNotFoundError } from '../src/shared/errors.ts'
import { ToolDetail, ToolList, toolDetail, toolsReport } from '../src/reports/tools.ts'

const toolsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/tools', {
    schema: {
      summary: 'Availability of every tool, with reasons',
      tags: ['operators'],
      querystring: Type.Object({ toolset: Type.Optional(Type.String({ description: 'Only tools with this toolset tag.' })) }, { additionalProperties: false }),
      response: { 200: ToolList }
    }
  }, async (request) => toolsReport(app.gateway, request.scope, request.query.toolset))

  app.get('/tools/:name', {
    schema: {
      summary: 'One tool in full: schema, toolset, limits, availability',
      tags: ['operators'],
      params: Type.Object({ name: Type.String({ description: 'The tool name.' }) }),
      response: { 200: ToolDetail, 404: Type.Ref('ErrorBody') }
    }
  }, async (request) => {
    const detail = await toolDetail(app.gateway, request.scope, request.params.name)
    if (detail === undefined) throw new ToolNotFoundError(request.params.name)
    return detail
  })
}

export default toolsRoutes
