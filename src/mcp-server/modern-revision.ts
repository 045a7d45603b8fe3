// What the gateway's MCP server says about itself, the same in every revision, and what the
// 2026-07-28 revision adds to its answers: the revision it serves, `resultType`, its identity in
// `_meta`, and how long a list or discover answer may be cached, and by whom.
import { SERVER_INFO_META_KEY } from '@modelcontextprotocol/server'
import { GATEWAY_IDENTITY } from '../shared/version.ts'

/** The stateless revision served beside the 2025 ones (which keep their sessions). */
export const MODERN_REVISION = '2026-07-28'

/** The Tasks extension (SEP-2663): tools/call may answer a task handle, to a 2026-07-28 client that declares it too. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks'

export const SERVER_CAPABILITIES = Object.freeze({ tools: Object.freeze({ listChanged: true }) })

/**
 * What /mcp's 2026-07-28 side adds: the Tasks extension, served there only (a task is read back with
 * tasks/get at /mcp; a 2025 session and stdio answer every call in its own request).
 */
export const HTTP_MODERN_CAPABILITIES = Object.freeze({ ...SERVER_CAPABILITIES, extensions: Object.freeze({ [TASKS_EXTENSION]: Object.freeze({}) }) })

export const SERVER_INSTRUCTIONS = 'The tools of a tool gateway; each call runs with the gateway\'s validation, deadline and result cap.'

export interface CacheHint {
  readonly ttlMs: number
  readonly cacheScope: 'public' | 'private'
}

export interface CacheHints {
  readonly list: CacheHint
  readonly discover: CacheHint
}

/**
 * A discover answer changes only when the gateway is upgraded: an hour, for anyone. A tool list
 * changes without a registry change when a tool's availability flips, which is checked again once
 * its verdict is older than `availabilityTtlMs`: fresh for that long, and private as soon as callers
 * are told apart (keys), since each key may see other tools.
 */
export function cacheHintsFor (availabilityTtlMs: number, callersDiffer: boolean): CacheHints {
  return {
    list: { ttlMs: availabilityTtlMs, cacheScope: callersDiffer ? 'private' : 'public' },
    discover: { ttlMs: 3_600_000, cacheScope: 'public' }
  }
}

/** `_meta` of every 2026-07-28 answer: who answered (the SDK stamps the same on the answers it makes). */
export const SERVER_INFO_META = Object.freeze({ [SERVER_INFO_META_KEY]: GATEWAY_IDENTITY })
