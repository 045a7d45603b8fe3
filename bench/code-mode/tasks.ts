// The two tasks, each done three ways against the same gateway: step by step as a model calls tools
// (list, then read every file), step by step the frugal way (a search that does part of the work,
// then as few reads as possible), and in one execute_code script written as a model writes one.
// The "model" of the step-by-step ways decides from the result contents it read, as a model would;
// every way ends with the same answer sentence, and the run checks the answers agree.
import { WORD, type Corpus, type NotesAnswer, type ServicesAnswer } from './corpus.ts'

export interface ToolCall { name: string, args: Record<string, unknown> }

/** What the ways of doing a task call: `step` groups calls that do not depend on each other. */
export interface Agent {
  /** Calls the tool over HTTP and answers its result content, parsed as the model reads it. */
  call: (call: ToolCall, step: number) => Promise<unknown>
}

export type Way = 'step-by-step' | 'step-by-step-frugal' | 'code'

export interface Task<A> {
  id: 'notes' | 'services'
  title: string
  /** The user's request: part of the context of every turn. */
  prompt: string
  ways: Record<Way, (agent: Agent) => Promise<A>>
  /** The model's final answer, the same sentence whichever way found it. */
  answerText: (answer: A) => string
  /** The answer in a canonical order, to compare ways. */
  canonical: (answer: A) => A
  expected: (corpus: Corpus) => A
}

interface ReadResult { path: string, content: string, total_lines: number | null }
interface Listing { files: string[] }
interface ScriptResult<A> { result: A, logs: string[], calls: number }

/** read_file numbers each line `N|`: what a model strips to see the file's own text. */
const unnumbered = (content: string): string => content.replace(/^\d+\|/gm, '')

async function runScript<A> (agent: Agent, code: string): Promise<A> {
  const content = await agent.call({ name: 'execute_code', args: { code } }, 0) as ScriptResult<A>
  return content.result
}

// As a model writes it: compact, plain JavaScript, the reads at once.
const NOTES_SCRIPT = `const { files } = await tools.search_files({ target: 'files', pattern: '*.txt', path: 'notes' })
const read = await Promise.all(files.map((path) => tools.read_file({ path })))
const kept = read.filter((f) => f.content.includes('${WORD}'))
return { files: kept.map((f) => f.path), lines: kept.reduce((n, f) => n + f.total_lines, 0) }`

export const notesTask: Task<NotesAnswer> = {
  id: 'notes',
  title: `notes/: of the text files, keep those that mention "${WORD}" and count their lines`,
  prompt: `Which of the text files in notes/ mention the word "${WORD}"? List them and tell me how many lines they have in all.`,
  ways: {
    async 'step-by-step' (agent) {
      const { files } = await agent.call({ name: 'search_files', args: { target: 'files', pattern: '*.txt', path: 'notes' } }, 0) as Listing
      const answer: NotesAnswer = { files: [], lines: 0 }
      for (const path of files) {
        const read = await agent.call({ name: 'read_file', args: { path } }, 1) as ReadResult
        if (unnumbered(read.content).includes(WORD)) {
          answer.files.push(path)
          answer.lines += read.total_lines ?? 0
        }
      }
      return answer
    },
    async 'step-by-step-frugal' (agent) {
      const { files } = await agent.call({ name: 'search_files', args: { pattern: WORD, path: 'notes', output_mode: 'files_with_matches' } }, 0) as Listing
      const answer: NotesAnswer = { files: [], lines: 0 }
      for (const path of files) {
        // One line is enough to learn the file's length.
        const read = await agent.call({ name: 'read_file', args: { path, limit: 1 } }, 1) as ReadResult
        answer.files.push(path)
        answer.lines += read.total_lines ?? 0
      }
      return answer
    },
    code: async (agent) => await runScript(agent, NOTES_SCRIPT)
  },
  answerText: (a) => `${a.files.length} files mention "${WORD}": ${a.files.join(', ')}. Together they have ${a.lines} lines.`,
  canonical: (a) => ({ files: [...a.files].sort(), lines: a.lines }),
  expected: (corpus) => corpus.notes
}

interface ServiceConfig { name: string, port: number, replicas: number }

const SERVICES_SCRIPT = `const { files } = await tools.search_files({ target: 'files', pattern: '*.json', path: 'services' })
const configs = await Promise.all(files.map(async (path) => JSON.parse((await tools.read_file({ path })).content.replace(/^\\d+\\|/gm, ''))))
const above = configs.filter((c) => c.port > 8000)
return { services: above.map((c) => c.name), replicas: above.reduce((n, c) => n + c.replicas, 0) }`

/** `services/auth.json:4:  "port": 8080,` lines of a content search: the service is the file's name. */
function fromSearchOutput (output: string): ServicesAnswer {
  const byService = new Map<string, Partial<ServiceConfig>>()
  for (const line of output.split('\n')) {
    const match = /^services\/([^/]+)\.json:\d+:\s*"(port|replicas)":\s*(\d+)/.exec(line)
    if (match === null) continue
    const entry = byService.get(match[1]) ?? {}
    entry[match[2] as 'port' | 'replicas'] = Number(match[3])
    byService.set(match[1], entry)
  }
  const above = [...byService].filter(([, c]) => (c.port ?? 0) > 8000)
  return { services: above.map(([name]) => name), replicas: above.reduce((n, [, c]) => n + (c.replicas ?? 0), 0) }
}

export const servicesTask: Task<ServicesAnswer> = {
  id: 'services',
  title: 'services/: of the JSON service configs, which listen on a port above 8000, and their replicas in all',
  prompt: 'Of the service configs in services/ (JSON), which listen on a port above 8000, and how many replicas do those have in total?',
  ways: {
    async 'step-by-step' (agent) {
      const { files } = await agent.call({ name: 'search_files', args: { target: 'files', pattern: '*.json', path: 'services' } }, 0) as Listing
      const answer: ServicesAnswer = { services: [], replicas: 0 }
      for (const path of files) {
        const read = await agent.call({ name: 'read_file', args: { path } }, 1) as ReadResult
        const config = JSON.parse(unnumbered(read.content)) as ServiceConfig
        if (config.port > 8000) {
          answer.services.push(config.name)
          answer.replicas += config.replicas
        }
      }
      return answer
    },
    async 'step-by-step-frugal' (agent) {
      // One content search shows every port and replica count, with the file each is in.
      const found = await agent.call({ name: 'search_files', args: { pattern: '"(port|replicas)":', path: 'services' } }, 0) as { output: string }
      return fromSearchOutput(found.output)
    },
    code: async (agent) => await runScript(agent, SERVICES_SCRIPT)
  },
  answerText: (a) => `${a.services.length} services listen on a port above 8000: ${a.services.join(', ')}. They have ${a.replicas} replicas in total.`,
  canonical: (a) => ({ services: [...a.services].sort(), replicas: a.replicas }),
  expected: (corpus) => corpus.services
}

export const TASKS = [notesTask, servicesTask] as const
export const WAYS: readonly Way[] = ['step-by-step', 'step-by-step-frugal', 'code']
