// Neutralises chat framing in error text before it reaches the model: a tool-call tag, a role
// token or a code fence inside an error message could otherwise be read as the conversation's own
// structure (a forged tool call, a new system turn). The words stay readable; only the brackets,
// bars and backticks that make them framing are swapped for look-alikes no template uses.

const OPEN = '‹'
const CLOSE = '›'

// Special tokens of chat templates: <|im_start|>, <|eot_id|>, <|start_header_id|>, <|endoftext|> ...
const SPECIAL_TOKEN = /<\|([^|<>\n]{0,64})\|>/g
// Tags that templates and agents use for turns and tool calls, optionally namespaced, open or close.
const FRAMING_TAG = new RegExp(
  '<(/?)((?:[A-Za-z_][\\w-]*:)?(?:tool_calls?|tool_response|tool_results?|tool_use|function_calls?|function_results?|' +
  'functions|invoke|parameter|system|user|assistant|tool|human|model|start_of_turn|end_of_turn|im_start|im_end|' +
  'think|thinking|s))(\\s[^<>]*)?(/?)>', 'gi')
const CDATA_OPEN = /<!\[CDATA\[/gi
const CDATA_CLOSE = /\]\]>/g
const LLAMA_SYS = /<<(\/?)SYS>>/g
const LLAMA_INST = /\[(\/?)INST\]/g
// Markdown fences: three or more backticks or tildes.
const BACKTICK_FENCE = /`{3,}/g
const TILDE_FENCE = /~{3,}/g

export function neutralizeFraming (text: string): string {
  // Cheap exit: every pattern needs one of these characters.
  if (!/[<`~[\]]/.test(text)) return text
  return text
    .replace(SPECIAL_TOKEN, `${OPEN}|$1|${CLOSE}`)
    .replace(FRAMING_TAG, `${OPEN}$1$2$3$4${CLOSE}`)
    .replace(CDATA_OPEN, `${OPEN}![CDATA[`)
    .replace(CDATA_CLOSE, `]]${CLOSE}`)
    .replace(LLAMA_SYS, `${OPEN}${OPEN}$1SYS${CLOSE}${CLOSE}`)
    .replace(LLAMA_INST, '⟦$1INST⟧')
    .replace(BACKTICK_FENCE, (fence) => 'ˋ'.repeat(fence.length))
    .replace(TILDE_FENCE, (fence) => '∼'.repeat(fence.length))
}
