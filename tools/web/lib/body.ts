// Reads a response body safely: transparent decompression (gzip, br, deflate) and a cap on the
// decoded size, so neither a huge page nor a small compression bomb fills memory.
import { pipeline, type Readable } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'

export class UnsupportedEncodingError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'UnsupportedEncodingError'
  }
}

/** Drops a body we will not read; undici reports the destroy as an error event, which must not go unheard. */
export function discard (stream: Readable): void {
  stream.on('error', () => {})
  stream.destroy()
}

export function decompressed (body: Readable, encoding: string | undefined): Readable {
  const coding = (encoding ?? '').trim().toLowerCase()
  if (coding === '' || coding === 'identity') return body
  const decoder = coding === 'gzip' || coding === 'x-gzip'
    ? createGunzip()
    : coding === 'br' ? createBrotliDecompress() : coding === 'deflate' ? createInflate() : undefined
  if (decoder === undefined) {
    discard(body)
    throw new UnsupportedEncodingError(`the server sent an unsupported Content-Encoding "${coding}"`)
  }
  // pipeline forwards errors (an abort, corrupt data) to the stream we read from.
  return pipeline(body, decoder, () => {}) as unknown as Readable
}

/** Reads at most `maxBytes` decoded bytes: the count is on what comes out of the decompressor, so a small gzip bomb stops early. */
export async function readCapped (stream: Readable, maxBytes: number): Promise<{ body: Buffer, cut: boolean }> {
  const chunks: Buffer[] = []
  let size = 0
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const room = maxBytes - size
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room))
        return { body: Buffer.concat(chunks), cut: true }
      }
      chunks.push(chunk)
      size += chunk.length
    }
  } finally {
    discard(stream)
  }
  return { body: Buffer.concat(chunks), cut: false }
}
