// Tests of truncateResult alone: head and tail kept, the marker's counts, the cap, surrogate pairs.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { truncateResult } from '../../src/dispatch/call/truncate.ts'

const EMOJI = '😀' // two UTF-16 code units

/** Indexes of code units that are half of a surrogate pair without their other half. */
function loneSurrogates (text: string): number[] {
  const lone: number[] = []
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 0xD800 && code <= 0xDBFF) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xDC00 && next <= 0xDFFF) i++
      else lone.push(i)
    } else if (code >= 0xDC00 && code <= 0xDFFF) {
      lone.push(i)
    }
  }
  return lone
}

const NOTICE_ONLY = /^\[\.\.\. truncated (\d+) of \1 characters \.\.\.\]$/
const MARKER = /\n\n\[\.\.\. truncated (\d+) of (\d+) characters \.\.\.\]\n\n/

/** Splits a truncated result into head, marker counts and tail. */
function parts (content: string) {
  const match = MARKER.exec(content)
  assert.ok(match, `no marker in ${JSON.stringify(content.slice(0, 200))}`)
  return {
    head: content.slice(0, match.index),
    cut: Number(match[1]),
    total: Number(match[2]),
    tail: content.slice(match.index + match[0].length)
  }
}

test('content within the cap is returned unchanged', () => {
  assert.deepEqual(truncateResult('hello', 5), { content: 'hello', truncated: false, originalLength: 5 })
  assert.deepEqual(truncateResult('hello', 100), { content: 'hello', truncated: false, originalLength: 5 })
  assert.deepEqual(truncateResult('', 0), { content: '', truncated: false, originalLength: 0 })
})

test('an Infinity cap never truncates', () => {
  const big = 'x'.repeat(2_000_000)
  const result = truncateResult(big, Infinity)
  assert.equal(result.truncated, false)
  assert.equal(result.content, big)
  assert.equal(result.originalLength, 2_000_000)
})

test('a long result keeps its head and its tail around a marker with the counts', () => {
  const content = 'HEAD-' + 'm'.repeat(10_000) + '-TAIL'
  const result = truncateResult(content, 1_000)
  assert.equal(result.truncated, true)
  assert.equal(result.originalLength, content.length)
  assert.ok(result.content.length <= 1_000, `length ${result.content.length}`)
  const { head, cut, total, tail } = parts(result.content)
  assert.ok(head.startsWith('HEAD-'))
  assert.ok(tail.endsWith('-TAIL'))
  assert.equal(total, content.length)
  assert.equal(cut, content.length - head.length - tail.length)
  // The kept text is exactly the original's two ends.
  assert.ok(content.startsWith(head))
  assert.ok(content.endsWith(tail))
  // Default share: the tail (newest output) gets more than the head.
  assert.ok(tail.length > head.length, `head ${head.length}, tail ${tail.length}`)
})

test('headShare decides how the kept characters are split', () => {
  const content = 'a'.repeat(500) + 'b'.repeat(500)
  const allTail = parts(truncateResult(content, 200, 0).content)
  assert.equal(allTail.head, '')
  assert.match(allTail.tail, /^b+$/)
  const allHead = parts(truncateResult(content, 200, 1).content)
  assert.equal(allHead.tail, '')
  assert.match(allHead.head, /^a+$/)
})

test('the cap is used to the full when the marker fits', () => {
  const content = 'z'.repeat(100_000)
  const result = truncateResult(content, 1_000)
  // The marker is sized for the worst case, so at most a few characters of slack remain.
  assert.ok(result.content.length >= 990 && result.content.length <= 1_000, `length ${result.content.length}`)
})

// Issue 11, item 7: the model must always be told that the result was cut, even when the cap
// leaves no room for any of it: the content is then the notice alone (longer than the cap).
test('tiny caps: a cap smaller than the notice gives the notice alone, with the counts, flagged', () => {
  for (const cap of [0, 5, 30]) {
    const result = truncateResult('q'.repeat(1_000), cap)
    assert.equal(result.content, '[... truncated 1000 of 1000 characters ...]', `cap ${cap}`)
    assert.equal(result.truncated, true)
    assert.equal(result.originalLength, 1_000)
  }
})

test('a negative or fractional cap is read as its whole non-negative part', () => {
  assert.equal(truncateResult('abcdef', -3).content, '[... truncated 6 of 6 characters ...]')
  assert.equal(truncateResult('abcdef', 2.9).content, '[... truncated 6 of 6 characters ...]')
  assert.equal(truncateResult('abcdef', 6.5).truncated, false)
})

test('a surrogate pair at the head cut is dropped whole, not split', () => {
  // A head of 5 (all of the budget, headShare 1) ends between the two halves of the emoji at index 4.
  const content = 'abcd' + EMOJI + 'e'.repeat(1_000)
  const result = truncateResult(content, `\n\n[... truncated ${content.length} of ${content.length} characters ...]\n\n`.length + 5, 1)
  assert.equal(parts(result.content).head, 'abcd')
  assert.deepEqual(loneSurrogates(result.content), [])
})

test('emoji at both cut points: neither side keeps half a pair', () => {
  const cap = 200
  const budget = cap - '\n\n[... truncated 1000 of 1000 characters ...]\n\n'.length
  const headLength = Math.floor(budget * 0.4)
  const tailLength = budget - headLength
  // Build a 1000-unit string where the head cut falls inside one emoji and the tail cut inside another.
  const body = 'x'.repeat(1_000).split('')
  body.splice(headLength - 1, 2, EMOJI[0], EMOJI[1])
  const tailStart = 1_000 - tailLength
  body.splice(tailStart - 1, 2, EMOJI[0], EMOJI[1])
  const content = body.join('')
  assert.equal(content.length, 1_000)
  assert.deepEqual(loneSurrogates(content), [])
  // Sanity: a naive cut at those points would split both pairs.
  assert.deepEqual(loneSurrogates(content.slice(0, headLength)).length, 1)
  assert.deepEqual(loneSurrogates(content.slice(tailStart)).length, 1)

  const result = truncateResult(content, cap)
  assert.equal(result.truncated, true)
  assert.ok(result.content.length <= cap)
  assert.deepEqual(loneSurrogates(result.content), [])
  const { head, tail, cut } = parts(result.content)
  assert.equal(head.length, headLength - 1)
  assert.equal(tail.length, tailLength - 1)
  assert.equal(cut, 1_000 - head.length - tail.length)
})

test('loop over many lengths and caps: never over the cap, no lone surrogate introduced', () => {
  const pieces = ['a', EMOJI, 'é', '\n', '𝄞', '{"k":1}']
  for (let n = 0; n <= 400; n += 7) {
    let content = ''
    for (let i = 0; content.length < n; i++) content += pieces[i % pieces.length]
    for (const cap of [0, 1, 2, 3, 5, 10, 47, 48, 49, 50, 60, 64, 100, 150, 399, 1_000]) {
      for (const share of [0, 0.4, 0.5, 1]) {
        const result = truncateResult(content, cap, share)
        assert.equal(result.originalLength, content.length)
        assert.equal(result.truncated, content.length > cap)
        // Only the notice alone may exceed the cap (a cap too small for it); a cut is always said.
        assert.ok(result.content.length <= Math.max(cap, 0) || NOTICE_ONLY.test(result.content), `n=${n} cap=${cap}: ${result.content.length}`)
        if (result.truncated) assert.match(result.content, /\[\.\.\. truncated \d+ of \d+ characters \.\.\.\]/)
        assert.deepEqual(loneSurrogates(result.content), [], `n=${n} cap=${cap} share=${share}`)
        if (!result.truncated) assert.equal(result.content, content)
      }
    }
  }
})

test('property: any text of emoji and ASCII, any cap: bounded, well-formed, ends kept, counts right', () => {
  const text = fc.array(fc.constantFrom('a', 'b', EMOJI, '𝄞', 'ß', ' '), { maxLength: 600 }).map((chunks) => chunks.join(''))
  fc.assert(fc.property(text, fc.integer({ min: 0, max: 700 }), (content, cap) => {
    const result = truncateResult(content, cap)
    assert.ok(result.content.length <= cap || NOTICE_ONLY.test(result.content))
    assert.equal(result.originalLength, content.length)
    assert.deepEqual(loneSurrogates(result.content), [])
    if (!result.truncated) {
      assert.equal(result.content, content)
      return
    }
    const match = MARKER.exec(result.content)
    if (match === null) {
      // Too small for a marker: the notice alone, with the counts.
      assert.equal(result.content, `[... truncated ${content.length} of ${content.length} characters ...]`)
      return
    }
    const { head, cut, total, tail } = parts(result.content)
    assert.ok(content.startsWith(head))
    assert.ok(content.endsWith(tail))
    assert.equal(total, content.length)
    assert.equal(cut, content.length - head.length - tail.length)
  }), { numRuns: 500 })
})

test('property: a kept result\'s notice names it, and its offset and count cover exactly what was cut', () => {
  const NOTICE = /\n\n\[\.\.\. truncated (\d+) of (\d+) characters; the full result is kept: (?:call read_result with \{"id": "res_x", "offset": (\d+)\} to read them|GET \/results\/res_x\?offset=(\d+) reads them) \.\.\.\]\n\n/
  fc.assert(fc.property(
    fc.array(fc.constantFrom('a', 'b', EMOJI, '\n'), { minLength: 0, maxLength: 600 }).map((parts) => parts.join('')),
    fc.integer({ min: 0, max: 700 }),
    fc.constantFrom('tool' as const, 'http' as const),
    (text, cap, via) => {
      const cut = truncateResult(text, cap, 0.4, { id: 'res_x', via })
      if (text.length <= cap) return assert.equal(cut.content, text)
      const match = NOTICE.exec(`\n\n${cut.content}\n\n`) ?? NOTICE.exec(cut.content)
      assert.ok(match !== null, cut.content)
      const offset = Number(match[3] ?? match[4])
      const [head, tail] = cut.content.split(match[0])
      if (tail === undefined) return assert.equal(offset, 0, 'the notice alone: read from the start')
      assert.ok(cut.content.length <= cap, `${cut.content.length} > ${cap}`)
      assert.equal(offset, head.length)
      assert.equal(head + text.slice(offset, offset + Number(match[1])) + tail, text)
      assert.deepEqual(loneSurrogates(cut.content), [])
    }
  ), { numRuns: 300 })
})
