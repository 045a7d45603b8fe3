// Tells text from binary by sniffing the start of a file: a NUL byte or bytes that are not UTF-8.
// Text tools refuse binary files politely instead of showing the model mojibake.

/** Why `sample` does not look like UTF-8 text, or undefined when it does. */
export function binaryReason (sample: Uint8Array): string | undefined {
  if (sample.includes(0)) return 'it contains NUL bytes (a binary file)'
  try {
    // stream: true lets a multi-byte character cut at the end of the sample pass.
    new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: true })
  } catch {
    return 'it is not valid UTF-8 text (a binary file or another encoding)'
  }
  return undefined
}
