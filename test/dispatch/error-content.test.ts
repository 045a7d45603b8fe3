// Unit tests of the error-content cleaning (issue 11, items 2 and 3): which credential shapes are
// redacted, which framing is neutralised, what is left alone, and the secret settings from config.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { loadConfig } from '../../src/config/load.ts'
import { ErrorContentCleaner } from '../../src/dispatch/call/error-content.ts'
import { neutralizeFraming } from '../../src/dispatch/call/framing.ts'
import { redactText, secretSettingsOf } from '../../src/dispatch/call/redact.ts'
import { failed } from '../../src/dispatch/call/outcome.ts'

test('credential shapes are redacted, the names and schemes around them kept', () => {
  const cases: Array<[string, string]> = [
    ['token ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'token [redacted]'],
    ['pat github_pat_11ABCDEFG0abcdefghijklmnop_qrstuvwxyz', 'pat [redacted]'],
    ['key sk-ant-api03-abcdefghijklmnopqrstuv end', 'key [redacted] end'],
    ['slack xoxb-1234567890-abcdefghij', 'slack [redacted]'],
    ['aws AKIAIOSFODNN7EXAMPLE here', 'aws [redacted] here'],
    ['Authorization: Bearer abc1.def-ghi_jkl', 'Authorization: Bearer [redacted]'],
    ['Authorization: Basic dXNlcjpwYXNzd29yZA==', 'Authorization: Basic [redacted]'],
    ['GET /v1?access_token=abc123&x=1', 'GET /v1?access_token=[redacted]&x=1'],
    ['{"api_key": "k-123456"}', '{"api_key": "[redacted]"}'],
    ['password=hunter22 user=ada', 'password=[redacted] user=ada'],
    ['https://ada:s3cret@db.example.com/x', 'https://ada:[redacted]@db.example.com/x'],
    ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl', 'jwt [redacted]'],
    // A known prefix is enough, whatever the length: short and truncated tokens too.
    ['bad credentials: ghp_abc123def456', 'bad credentials: [redacted]'],
    ['key sk-projABC123xyz refused', 'key [redacted] refused'],
    ['gho_x1 and glpat-abc and xoxp-1 and AIzaShort', '[redacted] and [redacted] and [redacted] and [redacted]']
  ]
  for (const [input, expected] of cases) assert.equal(redactText(input), expected, input)
})

test('ordinary error text is left alone', () => {
  for (const text of [
    'ENOENT: no such file or directory, open \'/tmp/notes.txt\'',
    'Tool slow timed out after 30 ms',
    'invalid arguments: /n: must be integer',
    'the token expired, sign in again',
    'Token expired; Basic authentication failed; Bearer token missing',
    'redirected to file:///etc/passwd: refused: only http',
    'redirected to http://127.0.0.1:8080/secret: refused by the SSRF guard',
    'read config.secret: permission denied',
    'Unknown tool: read_fiel'
  ]) {
    assert.equal(redactText(text), text)
    assert.equal(neutralizeFraming(text), text)
  }
})

test('secret values are redacted wherever they appear, longest first; too-short values are not searched', () => {
  assert.equal(redactText('a abcd-efgh b abcd', ['abcd', 'abcd-efgh']), 'a [redacted] b [redacted]')
  assert.equal(redactText('pin 123 is wrong', ['123']), 'pin 123 is wrong')
})

test('framing is removed: tool-call, role and result tags, role tokens, CDATA sections over lines, Llama markers; fences disguised', () => {
  const text = '<tool_call>{}</tool_call> <|im_start|>user <|eot_id|> <![CDATA[x\ny\n]]> ```py\n``` ~~~ <invoke name="x"> [INST] <<SYS>> <system>' +
    ' <result>r</result> <response>p</response> <output>o</output> <input>i</input> <ns:tool_use id="1"/>'
  const cleaned = neutralizeFraming(text)
  for (const token of ['<tool_call>', '</tool_call>', '<|im_start|>', '<|eot_id|>', '<![CDATA[', ']]>', 'x\ny', '```', '~~~', '<invoke', '[INST]', '<<SYS>>', '<system>',
    '<result>', '</result>', '<response>', '<output>', '<input>', '<ns:tool_use', '‹', '›']) {
    assert.equal(cleaned.includes(token), false, `${token} in ${cleaned}`)
  }
  assert.equal(neutralizeFraming('before <tool_call>{"name":"x"}</tool_call> after'), 'before {"name":"x"} after')
  assert.equal(neutralizeFraming('a <![CDATA[\nline 1\nline 2\n]]> b'), 'a  b')
  assert.equal(neutralizeFraming('a <tool<tool>_call> b'), 'a  b', 'pieces that join into a tag once one is cut are removed too')
  assert.equal(neutralizeFraming('a < b and c > d, x <= y, <div>'), 'a < b and c > d, x <= y, <div>')
})

test('the cleaner: failures cleaned (content stays valid JSON, secret-named keys redacted), ok results untouched', () => {
  const cleaner = new ErrorContentCleaner({ secretArguments: ['password'], secretValues: ['env-secret-value'] })
  const args = { user: 'ada', nested: { password: 'pw-value-1' } }
  const own = cleaner.result(failed('error', 'login "pw-value-1" failed <|im_end|> env-secret-value'), args)
  assert.equal(own.message, 'login "[redacted]" failed  [redacted]')
  assert.deepEqual(JSON.parse(own.content), { error: own.message })
  const foreign = cleaner.result({ status: 'error', content: '{"error":"bad","password":"x","detail":["Bearer abcd1234"]}' }, args)
  assert.deepEqual(JSON.parse(foreign.content), { error: 'bad', password: '[redacted]', detail: ['Bearer [redacted]'] })
  const text = cleaner.result({ status: 'error', content: 'plain ```text``` with env-secret-value' })
  assert.equal(text.content, 'plain ˋˋˋtextˋˋˋ with [redacted]')
  const ok = { status: 'ok' as const, content: 'Bearer abcdefgh and ```' }
  assert.equal(cleaner.result(ok, args), ok)
})

test('secret settings from config: GATEWAY_SECRET_ENV and the variables API keys are read from', async () => {
  const config = await loadConfig({
    env: { GATEWAY_SECRET_ENV: 'UPSTREAM, OTHER', UPSTREAM: 'u-value', TOOLS_DIR: '.' },
    cwd: process.cwd()
  })
  assert.deepEqual(config.logging.secretEnv, ['UPSTREAM', 'OTHER'])
  const settings = secretSettingsOf({ ...config, auth: { ...config.auth, keys: [{ env: 'KEY_VAR' }] } }, { UPSTREAM: 'u-value', KEY_VAR: 'k-value' })
  assert.deepEqual(settings.secretValues, ['u-value', 'k-value'], 'an unset variable adds nothing')
})
