// The worker side of html-pool.ts: one page per task, in a thread of its own. The default export
// turns HTML into markdown; formatText pretty-prints JSON or tidies text (large bodies only).
import { formatText, type TextKind } from './content.ts'
import { htmlToMarkdown, type HtmlExtract } from './html.ts'

export interface ConversionTask {
  html: string
  pageUrl: string
  charLimit: number
}

export interface FormatTask {
  text: string
  kind: TextKind
}

export default function convertPage (task: ConversionTask): HtmlExtract {
  return htmlToMarkdown(task.html, task.pageUrl, task.charLimit)
}

export function formatPage (task: FormatTask): string {
  return formatText(task.text, task.kind)
}
