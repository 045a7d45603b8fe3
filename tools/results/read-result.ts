// read_result: reads on in a result the gateway cut to its size cap, by the id its truncation notice
// gives. The kept results belong to the gateway, not to this module: tools import the registry and
// never the app, so the store reaches the handler as ctx.readResult, already bound to the caller
// (another key's result does not exist for it). A gateway whose tools folder lacks this module
// still keeps results; its notices then point at GET /results/:id instead.
import { READ_RESULT_TOOL, registry, toolError, toolResult } from '../../src/registry/index.ts'

/** What a model reads at once when it does not say: a useful chunk that leaves room in its context. */
const DEFAULT_LIMIT = 20_000
const MAX_LIMIT = 100_000

registry.register({
  name: READ_RESULT_TOOL,
  toolset: 'results',
  emoji: '📜',
  annotations: { title: 'Read the rest of a cut result', readOnly: true, openWorld: false },
  description: 'Read more of a tool result that was cut to its size limit. When a result contains a notice ' +
    '"[... truncated N of M characters; the full result is kept: call read_result with {"id": ..., "offset": ...} ...]", ' +
    `call this with that id and offset to get the missing characters, up to \`limit\` at a time (default ${DEFAULT_LIMIT}); ` +
    'the answer gives `nextOffset` to continue from (null at the end) and `totalLength`. Kept results expire after a while.',
  schema: {
    parameters: {
      type: 'object',
      properties: {
        id: { type: 'string', minLength: 1, maxLength: 100, description: 'The result id from the truncation notice (res_...).' },
        offset: { type: 'integer', minimum: 0, default: 0, description: 'First character to read (0 = the start of the full result).' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: `Most characters to read (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}).` }
      },
      required: ['id'],
      additionalProperties: false
    }
  },
  // Never cut again: a read is already bounded by `limit`, and cutting it would keep a second copy.
  maxResultSizeChars: Infinity,
  handler: async (args, ctx) => {
    // Defaults are the schema's, which the gateway does not fill in; the schema bounds limit.
    const { id, offset = 0, limit = DEFAULT_LIMIT } = args
    let page
    try {
      page = await ctx.readResult?.(id, offset, limit)
    } catch (err) {
      // An offset past the end: the message gives the length, which is all the model needs.
      return toolError((err as Error).message)
    }
    if (page === undefined) {
      return toolError(`no result ${id}: it is unknown or has expired (results are kept for a limited time); call the tool that made it again`)
    }
    return toolResult(page)
  }
})
