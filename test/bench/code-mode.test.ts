// The code-mode benchmark's tasks on a small corpus, against a real gateway: every way of doing each
// task finds the corpus's own answer, and the script costs fewer task tokens than the calls one by one.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { writeCorpus } from '../../bench/code-mode/corpus.ts'
import { fetchDefinitions, measureTask } from '../../bench/code-mode/measure-tasks.ts'
import { notesTask, servicesTask } from '../../bench/code-mode/tasks.ts'
import { buildTestApp } from '../helpers/app.ts'

test('code-mode bench: each way answers what the corpus holds; the script costs fewer tokens', async (t) => {
  const workspace = await mkdtemp(join(tmpdir(), 'code-bench-'))
  t.after(async () => { await rm(workspace, { recursive: true, force: true }) })
  const corpus = await writeCorpus(workspace, { notes: 6, services: 5, minLines: 40, maxLines: 80 })
  const { app } = await buildTestApp(t, { WORKSPACE_ROOT: workspace, CODE_MODE: 'true', LOG_LEVEL: 'warn' }, { builtins: true })
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  const definitions = await fetchDefinitions(url)
  assert.ok(definitions.codeAndFile > definitions.file)

  const notes = await measureTask(url, notesTask, corpus, definitions, 1)
  assert.ok(corpus.notes.files.length > 0)
  assert.ok(notes.reduction['step-by-step'] > 60, `notes: ${notes.reduction['step-by-step']} %`)
  const code = notes.ways.find((way) => way.way === 'code')
  assert.equal(code?.calls, 1)
  assert.equal(code?.sequential.turns, 2)

  const services = await measureTask(url, servicesTask, corpus, definitions, 1)
  assert.ok(services.reduction['step-by-step'] > 60, `services: ${services.reduction['step-by-step']} %`)
})
