// Real, small media files built from their specifications, for the tests of rich results: a PNG
// any decoder opens (signature, IHDR, IDAT, IEND with their CRCs) and a PCM WAV (RIFF header, a tone).
import { crc32, deflateSync } from 'node:zlib'

function chunk (type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

/** A `size`×`size` RGB PNG, a red-to-blue gradient. */
export function tinyPng (size = 4): Buffer {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(size, 0)
  header.writeUInt32BE(size, 4)
  header.set([8, 2, 0, 0, 0], 8) // 8 bits per channel, RGB, deflate, no filter method, no interlace
  const rows: number[] = []
  for (let y = 0; y < size; y++) {
    rows.push(0) // filter: none
    for (let x = 0; x < size; x++) rows.push(Math.round(255 * x / size), 0, Math.round(255 * y / size))
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.from(rows))),
    chunk('IEND', Buffer.alloc(0))
  ])
}

/** `samples` of a 440 Hz tone, 8 kHz mono 16-bit PCM, in a WAV file. */
export function tinyWav (samples = 800): Buffer {
  const data = Buffer.alloc(samples * 2)
  for (let i = 0; i < samples; i++) data.writeInt16LE(Math.round(8000 * Math.sin(2 * Math.PI * 440 * i / 8000)), i * 2)
  const header = Buffer.alloc(44)
  header.write('RIFF', 0, 'latin1')
  header.writeUInt32LE(36 + data.length, 4)
  header.write('WAVEfmt ', 8, 'latin1')
  header.writeUInt32LE(16, 16) // fmt chunk size
  header.writeUInt16LE(1, 20) // PCM
  header.writeUInt16LE(1, 22) // mono
  header.writeUInt32LE(8000, 24) // sample rate
  header.writeUInt32LE(16_000, 28) // byte rate
  header.writeUInt16LE(2, 32) // block align
  header.writeUInt16LE(16, 34) // bits per sample
  header.write('data', 36, 'latin1')
  header.writeUInt32LE(data.length, 40)
  return Buffer.concat([header, data])
}
