// The schema of `code`: code mode, the execute_code tool whose sandboxed script calls many tools and
// answers only what it returns (docs/code-mode.md). Part of the gateway configuration (schema.ts).
import { Type, type Static } from 'typebox'

export const CodeSchema = Type.Object({
  enabled: Type.Boolean({ default: false, description: 'Register execute_code in toolset `code` (CODE_MODE): a JavaScript script run in a QuickJS sandbox calls the caller\'s tools and returns one answer. Off by default: its description lists every tool in scope, which costs tokens a model that does not write code would not use.' }),
  workers: Type.Integer({ minimum: 1, maximum: 64, default: 2, description: 'Worker threads that run scripts (CODE_WORKERS); more scripts than workers wait their turn within their deadline.' }),
  memoryMb: Type.Integer({ minimum: 4, maximum: 1024, default: 64, description: 'The heap of one script, in MiB (CODE_MEMORY_MB): past it the script ends with an out-of-memory error.' }),
  stackKb: Type.Integer({ minimum: 64, maximum: 4096, default: 512, description: 'The stack of one script, in KiB (CODE_STACK_KB): deeper recursion ends the script. At most 4096: the QuickJS build\'s own C stack is about 5 MiB.' }),
  maxCalls: Type.Integer({ minimum: 1, maximum: 100_000, default: 200, description: 'Tool calls one script may make (CODE_MAX_CALLS); the next one fails in the script.' }),
  maxConcurrentCalls: Type.Integer({ minimum: 1, maximum: 256, default: 8, description: 'Tool calls of one script in flight at once (CODE_MAX_CONCURRENT_CALLS); more wait their turn.' }),
  maxOutputBytes: Type.Integer({ minimum: 1024, maximum: 64 * 1024 * 1024, default: 1024 * 1024, description: 'The returned value\'s JSON plus the console lines, in UTF-8 bytes (CODE_MAX_OUTPUT_BYTES): a larger result fails the script; further console lines are dropped.' }),
  maxCodeChars: Type.Integer({ minimum: 100, maximum: 1_000_000, default: 100_000, description: 'The longest script accepted (CODE_MAX_CODE_CHARS).' }),
  maxScriptsPerCaller: Type.Integer({ minimum: 1, maximum: 1024, default: 4, description: 'Scripts one caller (an API key, a user) may have running or waiting at once (CODE_MAX_SCRIPTS_PER_CALLER); more are refused at once.' })
}, { additionalProperties: false, default: {}, description: 'Code mode: the execute_code tool (docs/code-mode.md).' })

export type CodeSettings = Static<typeof CodeSchema>
