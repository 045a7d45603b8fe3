import { test } from 'node:test'
import assert from 'node:assert/strict'
import { isErrorResult } from '../../src/registry/tool-result.ts'
import { describeContentBlock, mapCallResult, type MappedResult } from '../../src/mcp-client/result.ts'

const PNG_BASE64 = Buffer.alloc(12_345, 7).toString('base64')

const TABLE: Array<[string, unknown, MappedResult]> = [
  ['text blocks are joined with newlines',
    { content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }] },
    { content: 'one\ntwo', isError: false }],
  ['no content at all is an empty string', { content: [] }, { content: '', isError: false }],
  ['structuredContent wins over its text echo, as JSON',
    { content: [{ type: 'text', text: '{"t": 1}' }], structuredContent: { t: 1, ü: 'ä' } },
    { content: '{"t":1,"ü":"ä"}', isError: false }],
  // The dispatcher checks media and names each in the text (src/dispatch/media.ts), not the mapping.
  ['an image is handed on as media, out of the text',
    { content: [{ type: 'text', text: 'Here:' }, { type: 'image', data: PNG_BASE64, mimeType: 'image/png' }] },
    { content: 'Here:', isError: false, media: [{ kind: 'image', mimeType: 'image/png', data: PNG_BASE64 }] }],
  ['audio is handed on as media', { content: [{ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }] },
    { content: '', isError: false, media: [{ kind: 'audio', mimeType: 'audio/wav', data: 'AAAA' }] }],
  ['an image of an error result is summarised in the error',
    { isError: true, content: [{ type: 'text', text: 'failed' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }] },
    { content: '{"error":"failed\\n[image: image/png, 3 bytes]"}', isError: true }],
  ['an embedded text resource keeps its text',
    { content: [{ type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'hello' } }] },
    { content: '[resource: file:///a.txt, text/plain]\nhello', isError: false }],
  ['an embedded blob resource is summarised',
    { content: [{ type: 'resource', resource: { uri: 'file:///a.bin', blob: 'AAAAAA==' } }] },
    { content: '[resource: file:///a.bin, 4 bytes of binary data]', isError: false }],
  ['a resource link is summarised',
    { content: [{ type: 'resource_link', uri: 'demo://r/1', name: 'One', mimeType: 'text/plain' }] },
    { content: '[resource link: demo://r/1 (One, text/plain)]', isError: false }],
  ['an unknown block type is named, not dropped',
    { content: [{ type: 'hologram', data: 'x' }] },
    { content: '[hologram content block]', isError: false }],
  ['structuredContent with an image: the JSON, and the image as media',
    { content: [{ type: 'image', data: 'AAAA', mimeType: 'image/gif' }], structuredContent: { ok: true } },
    { content: '{"ok":true}', isError: false, media: [{ kind: 'image', mimeType: 'image/gif', data: 'AAAA' }] }],
  ['isError makes a tool-level error of the text',
    { content: [{ type: 'text', text: 'disk full' }], isError: true },
    { content: '{"error":"disk full"}', isError: true }],
  ['isError whose text is already an error object (another gateway\'s) keeps it as it is, not wrapped again',
    { content: [{ type: 'text', text: '{"path":"a.txt","error":"File not found"}' }], isError: true },
    { content: '{"path":"a.txt","error":"File not found"}', isError: true }],
  ['isError whose text is JSON without an error field is still wrapped',
    { content: [{ type: 'text', text: '{"code":42}' }], isError: true },
    { content: '{"error":"{\\"code\\":42}"}', isError: true }],
  ['isError without text uses the structured content',
    { content: [], structuredContent: { code: 42 }, isError: true },
    { content: '{"error":"{\\"code\\":42}"}', isError: true }],
  ['isError with nothing says so',
    { content: [], isError: true },
    { content: '{"error":"the MCP tool reported an error without a message"}', isError: true }],
  ['the legacy toolResult field is used when there is no content',
    { toolResult: { legacy: 1 } },
    { content: '{"legacy":1}', isError: false }],
  ['a malformed result is an error, not a crash', 'nonsense',
    { content: '{"error":"the MCP server returned a malformed tool result"}', isError: true }],
  ['malformed blocks are marked', { content: [null, { type: 'text' }] },
    { content: '[malformed content block]\n[text block without text]', isError: false }]
]

for (const [name, input, expected] of TABLE) {
  test(`map result: ${name}`, () => {
    const mapped = mapCallResult(input)
    assert.deepEqual(mapped, expected)
    assert.equal(isErrorResult(mapped.content), expected.isError, 'the envelope sees the same verdict')
  })
}

test('server-chosen labels are one line and bounded', () => {
  const line = describeContentBlock({ type: 'resource_link', uri: `x\n${'u'.repeat(1000)}` })
  assert.ok(!line.includes('\n'))
  assert.ok(line.length < 260)
})
