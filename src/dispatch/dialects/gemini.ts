// Google Gemini: the `functionCall` parts of a model Content, answered by `functionResponse` parts.
// Gemini wants the response as an object: a result is {"output": content}, a failure
// {"error": message}, the two keys its documentation gives for output and error details. Images and
// sounds a tool returned go beside it as the FunctionResponse's `parts`, each with `inlineData`.
import { Type, type Static } from 'typebox'
import type { DispatchOutcome } from '../call/outcome.ts'
import { isRecord } from '../../shared/objects.ts'
import { callChecker, checkedCalls, ParallelFlags, type Dialect } from './dialect.ts'

export const GeminiFunctionCallPart = Type.Object({
  functionCall: Type.Object({
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'The call id, echoed in the answer (Gemini may omit it).' })),
    name: Type.String({ minLength: 1, maxLength: 256, description: 'The tool to run.' }),
    args: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'The arguments, an object.' }))
  }, { description: 'The function the model called.' })
}, { description: 'A functionCall part.' })

const OtherPart = Type.Object({}, { additionalProperties: true, description: 'Any other part (text, a thought): left alone.' })
const Parts = Type.Array(Type.Union([GeminiFunctionCallPart, OtherPart]), { description: 'Parts; the functionCall parts are run.' })

export const GeminiBody = Type.Union([
  Parts,
  Type.Object({ parts: Parts, ...ParallelFlags }, { description: 'A model Content (role, parts).' })
], { description: 'Gemini: functionCall parts, as an array or a Content.' })

export const GeminiAnswer = Type.Object({
  parts: Type.Array(Type.Object({
    functionResponse: Type.Object({
      id: Type.Optional(Type.String({ description: 'The id of the call this answers, when it had one.' })),
      name: Type.String({ description: 'The tool that ran.' }),
      response: Type.Object({
        output: Type.Optional(Type.String({ description: 'The result for the model, when the call succeeded.' })),
        error: Type.Optional(Type.String({ description: 'Why the call failed, when it did.' }))
      }, { description: 'The result as an object: {"output"} or {"error"}.' }),
      parts: Type.Optional(Type.Array(Type.Object({
        inlineData: Type.Object({
          mimeType: Type.String({ description: 'Its type, e.g. image/png or audio/wav.' }),
          data: Type.String({ description: 'The bytes, base64.' })
        }, { description: 'The item inline.' })
      }, { description: 'An image or a sound the tool returned.' }), { description: 'When the tool returned images or audio.' }))
    }, { description: 'The answer to one functionCall.' })
  }, { description: 'A functionResponse part.' }), { description: 'One part per call, in input order: the parts of the next user Content.' })
}, { description: 'Gemini answers.' })

const check = callChecker<Static<typeof GeminiFunctionCallPart>>(GeminiFunctionCallPart)
const isCall = (item: unknown): boolean => isRecord(item) && item.functionCall !== undefined

/** A failure's content is {"error": "..."}: its message goes in `error`; any other content as it is. */
function errorOf (outcome: DispatchOutcome): string {
  try {
    const parsed = JSON.parse(outcome.content) as unknown
    if (isRecord(parsed) && typeof parsed.error === 'string') return parsed.error
  } catch {}
  return outcome.content
}

export const gemini: Dialect = {
  name: 'gemini',
  shape: 'Gemini: an array of parts or {"role": "model", "parts": [...]}, with {"functionCall": {"id", "name", "args"}} parts',
  containers: ['parts'],
  bareArray: true,
  isCall,
  callsOf: (list, where) => checkedCalls(list, where, isCall, check, ({ functionCall }) => ({ id: functionCall.id, name: functionCall.name, args: functionCall.args ?? {} })),
  answerKey: 'parts',
  answer: (call, { outcome, inlineMedia }) => ({
    functionResponse: {
      ...(call.id === undefined ? {} : { id: call.id }),
      name: call.name,
      response: outcome.ok ? { output: outcome.content } : { error: errorOf(outcome) },
      ...(inlineMedia === undefined ? {} : { parts: inlineMedia.map(({ mimeType, data }) => ({ inlineData: { mimeType, data } })) })
    }
  })
}
