// Removes chat framing from error text before it reaches the model: a tool-call tag, a role token
// or a CDATA section inside an error message could otherwise be read as the conversation's own
// structure (a forged tool call, a new system turn, a result block). They are removed, not
// disguised: a look-alike of `<tool_call>` still reads as one to a model. Removal is repeated until
// nothing changes, so pieces that join into a new tag once one is cut out (`<tool<x>_call>`) are
// removed too. Markdown fences cannot forge a turn; they are swapped for look-alikes so that an
// error cannot close the fence a client put around it.

// Special tokens of chat templates: <|im_start|>, <|eot_id|>, <|start_header_id|>, <|endoftext|> ...
const SPECIAL_TOKEN = /<\|[^|<>\n]{0,64}\|>/g
// Tags that templates and agents use for turns, tool calls and their results, optionally
// namespaced, open or close.
const FRAMING_TAG = new RegExp(
  '</?(?:[A-Za-z_][\\w-]*:)?(?:tool_calls?|tool_response|tool_results?|tool_use|function_calls?|function_results?|' +
  'functions|invoke|parameter|system|user|assistant|tool|human|model|start_of_turn|end_of_turn|im_start|im_end|' +
  'think|thinking|s|results?|response|output|input)(?:\\s[^<>]*)?/?>', 'gi')
// A whole CDATA section, over any number of lines; an unclosed one runs to the end.
const CDATA_SECTION = /<!\[CDATA\[[\s\S]*?(?:\]\]>|$)/gi
const CDATA_CLOSE = /\]\]>/g
const LLAMA_SYS = /<<\/?SYS>>/g
const LLAMA_INST = /\[\/?INST\]/g
// Markdown fences: three or more backticks or tildes.
const BACKTICK_FENCE = /`{3,}/g
const TILDE_FENCE = /~{3,}/g
/** Passes of removal; past them what is left of `<` is disguised instead (a crafted nesting). */
const MAX_PASSES = 8

function removeOnce (text: string): string {
  return text
    .replace(CDATA_SECTION, '')
    .replace(CDATA_CLOSE, '')
    .replace(SPECIAL_TOKEN, '')
    .replace(FRAMING_TAG, '')
    .replace(LLAMA_SYS, '')
    .replace(LLAMA_INST, '')
}

export function neutralizeFraming (text: string): string {
  // Cheap exit: every pattern needs one of these characters.
  if (!/[<`~[\]]/.test(text)) return text
  let result = text
  for (let pass = 0; ; pass++) {
    const next = removeOnce(result)
    if (next === result) break
    result = next
    if (pass === MAX_PASSES) {
      result = result.replaceAll('<', '‹')
      break
    }
  }
  return result
    .replace(BACKTICK_FENCE, (fence) => 'ˋ'.repeat(fence.length))
    .replace(TILDE_FENCE, (fence) => '∼'.repeat(fence.length))
}
