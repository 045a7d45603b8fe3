// The committed OpenAPI document: fresh (regenerated from the routes), valid OpenAPI 3.0, complete
// (every route of API.md, a description on every field), and the one the gateway serves.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { test } from 'node:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import { formatOpenApiDocument, generateOpenApiDocument, OPENAPI_PATH } from '../scripts/openapi.ts'
import { buildTestApp } from './helpers/app.ts'

const API_ROUTES = [
  ['get', '/definitions'],
  ['post', '/dispatch/{name}'],
  ['post', '/dispatch'],
  ['get', '/tools'],
  ['get', '/tools/{name}'],
  ['get', '/toolsets'],
  ['get', '/healthz'],
  ['get', '/readyz'],
  ['get', '/metrics']
] as const

type Json = Record<string, unknown>

// One generation for the whole file: building the app is the slow part.
const fresh = generateOpenApiDocument()

async function committed (): Promise<Json> {
  let text: string
  try {
    text = await readFile(OPENAPI_PATH, 'utf8')
  } catch (err) {
    assert.fail(`cannot read ${OPENAPI_PATH} (${(err as Error).message}): run \`npm run openapi\` and commit the result`)
  }
  return JSON.parse(text) as Json
}

async function validate (document: Json): Promise<{ valid: boolean, errors?: unknown }> {
  // The validator may annotate what it is given: hand it a copy.
  return new Validator().validate(structuredClone(document))
}

/** Where a schema property or a parameter has no description: JSON-pointer-like paths. */
function undescribed (document: unknown): string[] {
  const found: string[] = []
  const described = (node: unknown): boolean => {
    if (typeof node !== 'object' || node === null) return false
    const value = node as Json
    // OpenAPI 3.0 ignores siblings of $ref: the referenced schema carries the description.
    return (typeof value.description === 'string' && value.description.trim() !== '') || typeof value.$ref === 'string'
  }
  const walk = (node: unknown, path: string): void => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, `${path}/${i}`))
      return
    }
    if (typeof node !== 'object' || node === null) return
    for (const [key, value] of Object.entries(node as Json)) {
      // Data, not schemas: a default or an example may hold any keys.
      if (key === 'default' || key === 'example' || key === 'examples' || key === 'enum') continue
      const here = `${path}/${key}`
      if (key === 'properties' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
        for (const [name, schema] of Object.entries(value as Json)) {
          if (!described(schema)) found.push(`${here}/${name}`)
        }
      }
      if (key === 'parameters' && Array.isArray(value)) {
        value.forEach((parameter, i) => {
          if (!described(parameter)) found.push(`${here}/${i} (${String((parameter as Json).in)} ${String((parameter as Json).name)})`)
        })
      }
      walk(value, here)
    }
  }
  const doc = document as Json
  walk(doc.paths, '#/paths')
  walk(doc.components, '#/components')
  return found
}

test('openapi/openapi.json is what `npm run openapi` generates now', async () => {
  const [onDisk, now] = await Promise.all([committed(), fresh])
  assert.deepEqual(onDisk, now, 'openapi/openapi.json is stale: run `npm run openapi` and commit the result')
})

test('openapi/openapi.json is byte-for-byte the formatted document (2 spaces, trailing newline)', async () => {
  const text = await readFile(OPENAPI_PATH, 'utf8')
  assert.equal(text, formatOpenApiDocument(JSON.parse(text)), 'openapi/openapi.json was edited by hand: run `npm run openapi`')
})

test('the document is valid OpenAPI 3.0', async () => {
  const document = await fresh
  assert.match(String(document.openapi), /^3\.0\.\d+$/)
  const result = await validate(document)
  assert.equal(result.valid, true, `the document does not validate as OpenAPI 3.0:\n${JSON.stringify(result.errors, null, 2)}`)
})

test('the validator rejects a broken document, so the check above can fail', async () => {
  const broken = structuredClone(await fresh)
  // A response without its description, which OpenAPI 3.0 requires.
  const paths = broken.paths as Record<string, Record<string, Json>>
  delete (paths['/healthz'].get.responses as Record<string, Json>)['200'].description
  const result = await validate(broken)
  assert.equal(result.valid, false)
})

test('every route of API.md is in the document', async () => {
  const paths = (await fresh).paths as Record<string, Json>
  const missing = API_ROUTES.filter(([method, path]) => paths[path]?.[method] === undefined).map(([m, p]) => `${m.toUpperCase()} ${p}`)
  assert.deepEqual(missing, [], `routes missing from the OpenAPI document: ${missing.join(', ')}`)
})

test('every schema property and parameter in paths and components has a description', async () => {
  const offenders = undescribed(await fresh)
  assert.deepEqual(offenders, [], `fields without a description (add one to the TypeBox schema):\n  ${offenders.join('\n  ')}`)
})

test('the description check finds a property without one, nested or in a parameter', () => {
  const document = {
    paths: {
      '/x': {
        get: {
          parameters: [{ in: 'query', name: 'q', schema: { type: 'string' } }],
          responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { a: { type: 'object', description: 'A.', properties: { b: { type: 'string' } } } } } } } } }
        }
      }
    },
    components: { schemas: { S: { type: 'object', properties: { c: { type: 'string', description: ' ' }, d: { $ref: '#/components/schemas/S' } } } } }
  }
  assert.deepEqual(undescribed(document), [
    '#/paths//x/get/parameters/0 (query q)',
    '#/paths//x/get/responses/200/content/application/json/schema/properties/a/properties/b',
    '#/components/schemas/S/properties/c'
  ])
})

test('GET /documentation serves Swagger UI and /documentation/json the same document', async (t) => {
  const { app } = await buildTestApp(t)
  const ui = await app.inject({ method: 'GET', url: '/documentation' })
  assert.equal(ui.statusCode, 200)
  assert.match(String(ui.headers['content-type']), /^text\/html/)
  assert.match(ui.body, /swagger-ui/i)

  const json = await app.inject({ method: 'GET', url: '/documentation/json' })
  assert.equal(json.statusCode, 200)
  assert.match(String(json.headers['content-type']), /^application\/json/)
  assert.deepEqual(json.json(), await fresh)
})

test('Swagger UI, built on the first page, serves its assets with their caching headers, and the YAML document', async (t) => {
  const { app } = await buildTestApp(t)
  const bundle = await app.inject({ method: 'GET', url: '/documentation/static/swagger-ui-bundle.js' })
  assert.equal(bundle.statusCode, 200)
  assert.match(String(bundle.headers['content-type']), /javascript/)
  assert.equal(Number(bundle.headers['content-length']), bundle.rawPayload.length)
  const etag = bundle.headers.etag
  assert.ok(typeof etag === 'string' && etag.length > 0, 'the asset has an ETag')
  const again = await app.inject({ method: 'GET', url: '/documentation/static/swagger-ui-bundle.js', headers: { 'if-none-match': etag } })
  assert.equal(again.statusCode, 304)
  const missing = await app.inject({ method: 'GET', url: '/documentation/static/no-such-file.js' })
  assert.equal(missing.statusCode, 404)
  const initializer = await app.inject({ method: 'GET', url: '/documentation/static/swagger-initializer.js' })
  assert.match(initializer.body, /resolveUrl\('\.\/json'\)/, 'the page reads the document this app serves, /documentation/json')

  const yaml = await app.inject({ method: 'GET', url: '/documentation/yaml' })
  assert.equal(yaml.statusCode, 200)
  assert.match(String(yaml.headers['content-type']), /^application\/x-yaml/)
  assert.match(yaml.body, /^openapi: 3\.0\.3$/m)
})
