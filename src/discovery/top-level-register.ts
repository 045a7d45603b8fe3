// Static analysis for tool discovery: whether a module self-registers at its top level. Deciding
// from the AST (not a regex, not an import) keeps helper modules unloaded and ignores calls that
// only appear in comments, strings or function bodies. The gateway runs it in a child process
// (./analyse-modules.ts): the parser and the memory it takes are gone with that process.
import { parseSync } from 'oxc-parser'

interface Node {
  type: string
  [key: string]: unknown
}

function unwrapParens (node: Node): Node {
  let current = node
  while (current.type === 'ParenthesizedExpression') current = current.expression as Node
  return current
}

function isRegistryRegisterCall (node: Node): boolean {
  const call = unwrapParens(node)
  if (call.type !== 'CallExpression' || call.optional === true) return false
  const callee = unwrapParens(call.callee as Node)
  if (callee.type !== 'MemberExpression' || callee.optional === true) return false
  const object = unwrapParens(callee.object as Node)
  const property = callee.property as Node
  const propertyName = callee.computed === true
    ? (property.type === 'Literal' ? property.value : undefined)
    : (property.type === 'Identifier' ? property.name : undefined)
  return object.type === 'Identifier' && object.name === 'registry' && propertyName === 'register'
}

function describeParseError (source: string, message: string, offset: number | undefined): string {
  if (offset === undefined) return message
  const before = source.slice(0, offset).split('\n')
  return `${message} (line ${before.length}, column ${before[before.length - 1].length + 1})`
}

/**
 * True when the module's top level has an expression statement calling `registry.register(...)`.
 * A file with parse errors never counts: importing it would only fail later with a worse message.
 */
export function registersAtTopLevel (filename: string, source: string): { registers: boolean, parseErrors: string[] } {
  const { program, errors } = parseSync(filename, source, { sourceType: 'module' })
  const parseErrors = errors
    .filter((error) => error.severity === 'Error')
    .map((error) => describeParseError(source, error.message, error.labels[0]?.start))
  if (parseErrors.length > 0) return { registers: false, parseErrors }
  const registers = program.body.some((statement) =>
    statement.type === 'ExpressionStatement' && isRegistryRegisterCall(statement.expression as unknown as Node))
  return { registers, parseErrors }
}
