// GET /metrics/history: the last minutes of this gateway's tool calls as JSON series, for the
// console's charts (docs/console.md). Unlike /metrics, any caller may read it, since it shows only
// the tools that caller may see: a key limited to toolsets sees its own tools' series, and a total
// over those alone; the calls of unknown tools, or of tools past the tracked number, only callers
// not limited to toolsets see.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'

const Counts = (description: string) => Type.Array(Type.Integer({ minimum: 0 }), { description })
const Millis = (description: string) => Type.Array(Type.Union([Type.Number(), Type.Null()]), { description })

const Series = Type.Object({
  calls: Counts('Calls that ended in each slot, oldest first.'),
  errors: Counts('Of those, the calls whose status was not ok.'),
  p50Ms: Millis('Median duration of the slot\'s calls in milliseconds; null without calls.'),
  p99Ms: Millis('99th percentile of the slot\'s durations in milliseconds; null without calls.')
}, { additionalProperties: false, description: 'One array entry per slot, oldest first.' })

const History = Type.Object({
  stepSeconds: Type.Integer({ description: 'The length of one slot, in seconds.' }),
  slots: Type.Integer({ description: 'Slots in each array (the window is stepSeconds × slots).' }),
  end: Type.Integer({ description: 'The end of the last (current) slot, Unix milliseconds.' }),
  tools: Type.Record(Type.String(), Series, { description: 'Per tool with calls in the window that the caller may see.' }),
  total: Series
}, { description: 'The last minutes of tool calls on this replica.' })

const metricsHistoryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/metrics/history', {
    schema: {
      summary: 'The last ten minutes of tool calls per tool, for charts',
      tags: ['operators'],
      querystring: Type.Object({ tool: Type.Optional(Type.String({ description: 'Only this tool.' })) }, { additionalProperties: false }),
      response: { 200: History }
    }
  }, async (request) => {
    const { scope } = request
    return app.metrics.history.answer((tool) => scope.mayUse(tool), request.query.tool)
  })
}

export default metricsHistoryRoutes
