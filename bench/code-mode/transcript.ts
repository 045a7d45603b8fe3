// What one way of doing a task cost, counted in o200k_base (the encoding X-Definitions-Tokens uses):
// each tool call over HTTP as a model makes it, its tokens sent (the tool's name and its arguments'
// JSON, as a model emits a call) and read (the result's `content`, what enters the model's context),
// and the wall time of the calls, made one after the other. Then what an agent loop would process
// over the whole task, every turn re-sending the context so far.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import type { Agent, ToolCall } from './tasks.ts'

export { countTokens }

export interface RecordedCall { tool: string, step: number, sent: number, read: number, ms: number }

export interface Transcript { calls: RecordedCall[], wallMs: number }

/** An Agent on the gateway at `url`, recording each call; a call that is not ok fails the run. */
export function recordingAgent (url: string, transcript: Transcript): Agent {
  return {
    async call (call: ToolCall, step: number): Promise<unknown> {
      const body = JSON.stringify(call.args)
      const started = performance.now()
      const response = await fetch(`${url}/dispatch/${call.name}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      const answer = await response.json() as { ok: boolean, content: string }
      const ms = performance.now() - started
      if (!response.ok || !answer.ok) throw new Error(`${call.name} ${body} answered ${response.status}: ${JSON.stringify(answer).slice(0, 500)}`)
      transcript.calls.push({ tool: call.name, step, sent: countTokens(call.name) + countTokens(body), read: countTokens(answer.content), ms })
      transcript.wallMs += ms
      return JSON.parse(answer.content) as unknown
    }
  }
}

export interface Turns {
  /** Model turns: each ends with tool calls, the last with the answer. */
  turns: number
  /** Input tokens summed over the turns: each turn reads the whole context so far. */
  input: number
  /** Everything the provider processes: the input of every turn plus what the model writes. */
  processed: number
}

export interface Costs {
  calls: number
  tools: Record<string, number>
  sent: number
  read: number
  answer: number
  /** sent + read + answer: the task's own tokens, definitions and prompt aside. */
  total: number
  wallMs: number
  /** One call per turn, as a model without parallel calls works. */
  sequential: Turns
  /** Calls that do not depend on each other in one turn (parallel tool calls). */
  parallel: Turns
}

/**
 * The agent loop's bill: turn k reads `context` (definitions + prompt) and every call and result of
 * the turns before it, and writes its own calls; the last turn writes the answer. Message framing
 * (role markers, call ids) is left out: a few tokens per message on either way.
 */
function turnsOf (groups: ReadonlyArray<{ sent: number, read: number }>, context: number, answer: number): Turns {
  let input = 0
  let so = context
  let written = 0
  for (const group of groups) {
    input += so
    written += group.sent
    so += group.sent + group.read
  }
  input += so
  written += answer
  return { turns: groups.length + 1, input, processed: input + written }
}

export function costsOf (transcript: Transcript, answerText: string, context: number): Costs {
  const answer = countTokens(answerText)
  const sent = transcript.calls.reduce((n, c) => n + c.sent, 0)
  const read = transcript.calls.reduce((n, c) => n + c.read, 0)
  const tools: Record<string, number> = {}
  for (const call of transcript.calls) tools[call.tool] = (tools[call.tool] ?? 0) + 1
  const steps = new Map<number, { sent: number, read: number }>()
  for (const call of transcript.calls) {
    const group = steps.get(call.step) ?? { sent: 0, read: 0 }
    group.sent += call.sent
    group.read += call.read
    steps.set(call.step, group)
  }
  const ordered = [...steps].sort(([a], [b]) => a - b).map(([, group]) => group)
  return {
    calls: transcript.calls.length,
    tools,
    sent,
    read,
    answer,
    total: sent + read + answer,
    wallMs: transcript.wallMs,
    sequential: turnsOf(transcript.calls, context, answer),
    parallel: turnsOf(ordered, context, answer)
  }
}
