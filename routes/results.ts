// GET /results/:id: the full text of a result that dispatch cut to its size cap, a slice at a time,
// for the API key that made the call (the read_result tool reads the same store for models).
// GET /results/:id/media/:n: an image or a sound a tool returned, as raw bytes with their type.
// Another key's result, an expired one and an unknown id all answer the same 404.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { BadRequestError, ResultNotFoundError } from '../src/shared/errors.ts'
import { DEFAULT_HTTP_READ_CHARS, MAX_HTTP_READ_CHARS, pageOf } from '../src/results/read.ts'

const ResultPage = Type.Object({
  id: Type.String({ description: 'The result id.' }),
  offset: Type.Integer({ description: 'Where this slice starts, in UTF-16 code units (as originalLength counts).' }),
  content: Type.String({ description: 'The characters from offset on, at most limit of them.' }),
  totalLength: Type.Integer({ description: 'The length of the whole result (the envelope\'s originalLength).' }),
  nextOffset: Type.Union([Type.Integer(), Type.Null()], { description: 'The offset of the next slice; null once the end is reached.' })
}, { description: 'A slice of a kept result.' })

const resultsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { results } = app.gateway
  app.get('/results/:id', {
    schema: {
      summary: 'Read the full text of a cut result',
      description: 'A dispatch whose result was cut to its size cap answers `resultId` in its envelope (and names it in the truncation notice): the full text is kept for the same API key for a limited time (results.ttlMs) and read here a slice at a time. Unknown, expired and other keys\' ids answer 404 alike.',
      tags: ['dispatch'],
      params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'The resultId of the envelope.' }) }),
      // Digit strings read here: the app's validator coerces no types (src/app/app.ts).
      querystring: Type.Object({
        offset: Type.Optional(Type.String({ pattern: '^\\d{1,15}$', description: 'First character to answer, a whole number (default 0, the start); past the end is a 400.' })),
        limit: Type.Optional(Type.String({ pattern: '^\\d{1,15}$', description: `Most characters to answer, 1 to ${MAX_HTTP_READ_CHARS} (default ${DEFAULT_HTTP_READ_CHARS}).` }))
      }, { additionalProperties: false }),
      response: { 200: ResultPage, 400: Type.Ref('ErrorBody'), 404: Type.Ref('ErrorBody') }
    }
  }, async (request) => {
    const { id } = request.params
    const offset = Number(request.query.offset ?? 0)
    const limit = Number(request.query.limit ?? DEFAULT_HTTP_READ_CHARS)
    if (limit < 1 || limit > MAX_HTTP_READ_CHARS) throw new BadRequestError(`limit must be 1 to ${MAX_HTTP_READ_CHARS} (got ${limit})`)
    // On an open gateway every caller is `anonymous`; with keys, the key's name (src/http/auth.ts).
    const kept = await results.find(request.principal?.name, id)
    if (kept === undefined) throw new ResultNotFoundError(id)
    return pageOf(kept, offset, limit)
  })

  app.get('/results/:id/media/:n', {
    schema: {
      summary: 'Fetch an image or a sound a tool returned',
      description: 'A dispatch whose tool returned images or audio answers `media` in its envelope, each item with its `url` here (and names it in a note in `content`): the bytes, with their own Content-Type, for the same API key for a limited time (results.ttlMs). Unknown, expired and other keys\' ids, and an item number past the last, answer 404 alike.',
      tags: ['dispatch'],
      params: Type.Object({
        id: Type.String({ minLength: 1, maxLength: 100, description: 'The resultId of the envelope.' }),
        n: Type.String({ pattern: '^\\d{1,4}$', description: 'The item\'s position in the envelope\'s media, from 0.' })
      }),
      response: {
        // One entry per family: the document shows the route answers bytes, not JSON.
        200: {
          description: 'The bytes, with the item\'s own Content-Type (image/png, audio/wav, ...).',
          content: {
            'image/*': { schema: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'An image.' }) },
            'audio/*': { schema: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'A sound.' }) }
          }
        },
        400: Type.Ref('ErrorBody'),
        404: Type.Ref('ErrorBody')
      }
    }
  }, async (request, reply) => {
    const { id, n } = request.params
    const item = (await results.find(request.principal?.name, id))?.media[Number(n)]
    if (item === undefined) throw new ResultNotFoundError(`${id} media ${n}`)
    // A Buffer skips the JSON serialiser; nosniff keeps a browser from reading it as anything else.
    return reply.type(item.mimeType).header('x-content-type-options', 'nosniff').send(item.data)
  })
}

export default resultsRoutes
