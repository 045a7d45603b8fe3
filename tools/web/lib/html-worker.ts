// The worker side of html-pool.ts: one page's HTML → markdown per task, in a thread of its own.
import { htmlToMarkdown, type HtmlExtract } from './html.ts'

export interface ConversionTask {
  html: string
  pageUrl: string
  charLimit: number
}

export default function convertPage (task: ConversionTask): HtmlExtract {
  return htmlToMarkdown(task.html, task.pageUrl, task.charLimit)
}
