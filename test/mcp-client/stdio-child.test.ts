import { test } from 'node:test'
import assert from 'node:assert/strict'
import { DEFAULT_INHERITED_ENV_VARS } from '@modelcontextprotocol/client/stdio'
import { CHILD_ENV_ALLOWLIST, childEnvironment } from '../../src/mcp-client/stdio-child.ts'

test('the child environment is the allowlist plus the server env; the SDK defaults are masked', () => {
  const parent = { PATH: '/bin', HOME: '/home/u', LANG: 'C.UTF-8', SHELL: '/bin/bash', TERM: 'xterm', LOGNAME: 'u', AWS_SECRET_ACCESS_KEY: 'x', TZ: 'UTC' }
  const env = childEnvironment({ API_KEY: 'k', TZ: 'Europe/Paris' }, parent)
  const visible = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined))
  assert.deepEqual(visible, { PATH: '/bin', HOME: '/home/u', LANG: 'C.UTF-8', TZ: 'Europe/Paris', API_KEY: 'k' })
  for (const name of DEFAULT_INHERITED_ENV_VARS) {
    if (!CHILD_ENV_ALLOWLIST.includes(name)) assert.ok(Object.hasOwn(env, name) && env[name] === undefined, `${name} is masked`)
  }
})

test('the XDG base folders the gateway has are passed on; the ones it lacks stay unset', () => {
  const parent = { PATH: '/bin', XDG_CONFIG_HOME: '/c', XDG_DATA_HOME: '/d', XDG_CACHE_HOME: '/k', XDG_STATE_HOME: '/s', XDG_RUNTIME_DIR: '/run/user/1', XDG_SESSION_ID: '7' }
  const visible = Object.fromEntries(Object.entries(childEnvironment({}, parent)).filter(([, v]) => v !== undefined))
  assert.deepEqual(visible, { PATH: '/bin', XDG_CONFIG_HOME: '/c', XDG_DATA_HOME: '/d', XDG_CACHE_HOME: '/k', XDG_STATE_HOME: '/s', XDG_RUNTIME_DIR: '/run/user/1' })
  assert.equal(Object.hasOwn(childEnvironment({}, { PATH: '/bin' }), 'XDG_RUNTIME_DIR'), false)
})
