// The check of a result's media on its own: what passes (and how it is normalised), what is
// dropped and the line that says why, and the per-call byte cap across items.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { checkMedia, mediaNote } from '../../src/dispatch/call/media.ts'

const PNG = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64') // 8 bytes: 'iVBORw0KGgo='

test('valid items pass with their decoded size; line breaks in base64 are removed; a MIME type is lower-cased', () => {
  const wrapped = `${PNG.slice(0, 4)}\n${PNG.slice(4)}`
  const checked = checkMedia([
    { kind: 'image', mimeType: 'IMAGE/PNG', data: wrapped },
    { kind: 'audio', mimeType: 'audio/wav', data: 'AAAA' }
  ], 1000)
  assert.deepEqual(checked, {
    media: [
      { kind: 'image', mimeType: 'image/png', bytes: 8, data: PNG },
      { kind: 'audio', mimeType: 'audio/wav', bytes: 3, data: 'AAAA' }
    ],
    dropped: []
  })
  // Checked again (a regex with state would answer differently the second time).
  assert.equal(checkMedia([{ kind: 'image', mimeType: 'image/png', data: wrapped }], 1000).media.length, 1)
})

test('each wrong item is dropped with the reason; the cap counts all items of the call together', () => {
  const checked = checkMedia([
    null,
    { kind: 'image', mimeType: 'image/svg+xml', data: PNG },
    { kind: 'audio', mimeType: 'audio/wav', data: 'AAA' },
    { kind: 'audio', mimeType: 'audio/wav', data: 42 },
    { kind: 'image', mimeType: 'image/png', data: '' },
    { kind: 'image', mimeType: 'image/png', data: PNG },
    { kind: 'image', mimeType: 'image/png', data: PNG }
  ], 12)
  assert.deepEqual(checked.media.map((item) => item.bytes), [8])
  assert.deepEqual(checked.dropped, [
    '[media item dropped: not a media object]',
    '[image dropped: "image/svg+xml" is not an accepted image type (accepted: image/png, image/jpeg, image/gif, image/webp)]',
    '[audio dropped: data is not valid base64]',
    '[audio dropped: data is not a base64 string]',
    '[image dropped: data is empty]',
    '[image dropped: 8 bytes is over the 4 bytes of media this call may still carry (dispatch.maxMediaBytes)]'
  ])
})

test('the note names each item by its position, with its url when kept', () => {
  assert.equal(mediaNote([
    { kind: 'image', mimeType: 'image/png', bytes: 8, data: PNG, url: '/results/res_a/media/0' },
    { kind: 'audio', mimeType: 'audio/ogg', bytes: 3, data: 'AAAA' }
  ]), '[image 0: image/png, 8 bytes; GET /results/res_a/media/0 fetches it]\n[audio 1: audio/ogg, 3 bytes; not kept by the gateway]')
})
