// The code that runs inside the VM before the script: `tools` and `console`, the promises of inner
// calls, and what turns the script's result and thrown values into JSON text. The host functions it
// receives are held in this closure only, never put on the global object, and everything it hands
// the host is a string or a number, which the host checks again.

/**
 * An expression: a function of (hostCall, hostLog, namesJson, maxLineLength) that installs `tools` and
 * `console` on the global object and returns [settle, finish, describe].
 * - hostCall(name, argsJson) answers a call id (number) or why the call is refused (string).
 * - settle(id, ok, text) resolves the call's promise with JSON.parse(text), or rejects it with Error(text).
 * - finish(value, limit) answers the result's JSON text, { reason } when it is not JSON, or
 *   { tooLong: length } when its text is longer than `limit`.
 * - describe(thrown) answers JSON text: { isError, name, message, stack } or { isError: false, shown }.
 */
export const PRELUDE = `(function (hostCall, hostLog, namesJson, maxLineLength) {
  'use strict'
  const stringify = JSON.stringify
  const parse = JSON.parse
  const freeze = Object.freeze
  const defineProperty = Object.defineProperty
  const create = Object.create
  const PromiseCtor = Promise
  const ErrorCtor = Error
  const StringCtor = String
  const pending = create(null)
  const names = parse(namesJson)

  function errorText (error) {
    try {
      if (error instanceof ErrorCtor) return StringCtor(error.message)
      return StringCtor(error)
    } catch {
      return 'an unprintable value'
    }
  }

  function isInternal (error) {
    try { return error instanceof ErrorCtor && error.name === 'InternalError' } catch { return false }
  }

  function text (value) {
    if (typeof value === 'string') return value
    try {
      const json = stringify(value)
      if (json !== undefined) return json
    } catch (error) {
      if (isInternal(error)) throw error
    }
    try { return StringCtor(value) } catch { return '[unprintable]' }
  }

  function log (...args) {
    let line = ''
    for (let i = 0; i < args.length && line.length <= maxLineLength; i++) line += (i === 0 ? '' : ' ') + text(args[i])
    hostLog(line.length > maxLineLength ? line.slice(0, maxLineLength + 1) : line)
  }

  function call (name, args) {
    let json
    try {
      json = args === undefined ? '{}' : stringify(args)
    } catch (error) {
      if (isInternal(error)) throw error
      return PromiseCtor.reject(new ErrorCtor('the arguments of tools[' + stringify(name) + '] are not JSON-serialisable: ' + errorText(error)))
    }
    if (json === undefined) {
      return PromiseCtor.reject(new ErrorCtor('the arguments of tools[' + stringify(name) + '] are not JSON-serialisable: a ' + typeof args))
    }
    const id = hostCall(name, json)
    if (typeof id === 'string') return PromiseCtor.reject(new ErrorCtor(id))
    return new PromiseCtor((resolve, reject) => { pending[id] = [resolve, reject] })
  }

  function settle (id, ok, text) {
    const entry = pending[id]
    if (entry === undefined) return
    delete pending[id]
    if (!ok) return entry[1](new ErrorCtor(text))
    entry[0](parse(text))
  }

  function finish (value, limit) {
    let json
    try {
      json = value === undefined ? 'null' : stringify(value)
    } catch (error) {
      if (isInternal(error)) throw error
      return { reason: errorText(error) }
    }
    if (json === undefined) return { reason: 'a ' + typeof value + ' is not a JSON value' }
    if (json.length > limit) return { tooLong: json.length }
    return json
  }

  function describe (thrown) {
    try {
      if (thrown instanceof ErrorCtor) {
        const stack = typeof thrown.stack === 'string' ? thrown.stack.slice(0, 2000) : ''
        return stringify({ isError: true, name: StringCtor(thrown.name), message: StringCtor(thrown.message).slice(0, 4000), stack })
      }
    } catch (error) {
      if (isInternal(error)) throw error
    }
    let shown
    try { shown = stringify(thrown) } catch {}
    if (shown === undefined) shown = text(thrown)
    return stringify({ isError: false, shown: shown.slice(0, 1000) })
  }

  const tools = create(null)
  for (let i = 0; i < names.length; i++) {
    const name = names[i]
    tools[name] = freeze((args) => call(name, args))
  }
  defineProperty(globalThis, 'tools', { value: freeze(tools), enumerable: false, writable: false, configurable: false })
  const consoleObject = freeze({ log, info: log, warn: log, error: log, debug: log })
  defineProperty(globalThis, 'console', { value: consoleObject, enumerable: false, writable: false, configurable: false })
  return [settle, finish, describe]
})`

/** The script as the body of an async function, on the wrapper's first line so line numbers stay the user's. */
export const SCRIPT_PREFIX = '(async function () {'
export const SCRIPT_SUFFIX = '\n})()'
export const SCRIPT_FILE = 'script.js'
