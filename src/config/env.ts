// Maps environment variables onto configuration fields. Values are converted where they clearly
// are numbers, booleans or lists; anything else is passed as the string, so validation reports it
// against the field with the variable's name.

type Kind = 'string' | 'integer' | 'number' | 'boolean' | 'list' | 'pairs'

/** Variable → [field path, kind]. docs/configuration.md lists the same table. */
export const ENV_VARIABLES: Readonly<Record<string, readonly [string, Kind]>> = Object.freeze({
  HOST: ['host', 'string'],
  PORT: ['port', 'integer'],
  LOG_LEVEL: ['logLevel', 'string'],
  TOOLS_DIR: ['toolsDir', 'string'],
  EXTRA_TOOLS_DIRS: ['extraToolsDirs', 'list'],
  SEARCH_TOOL: ['searchTool', 'boolean'],
  WORKSPACE_ROOT: ['workspaceRoot', 'string'],
  STATE_DIR: ['stateDir', 'string'],
  TRUST_PINNING: ['trust.pinning', 'string'],
  TRUST_PINS_FILE: ['trust.pinsFile', 'string'],
  TRUST_HOLD_NEW_TOOLS: ['trust.holdNewTools', 'boolean'],
  TRUST_HOLD_SUSPICIOUS: ['trust.holdSuspicious', 'boolean'],
  TRUST_MAX_DESCRIPTION_CHARS: ['trust.maxDescriptionChars', 'integer'],
  TRUST_APPROVAL: ['trust.approval', 'list'],
  TRUST_APPROVAL_TIMEOUT_MS: ['trust.approvalTimeoutMs', 'integer'],
  WORKSPACE_MAX_BYTES: ['workspaceMaxBytes', 'integer'],
  WORKSPACE_MAX_FILES: ['workspaceMaxFiles', 'integer'],
  BODY_LIMIT_BYTES: ['http.bodyLimitBytes', 'integer'],
  ALLOWED_HOSTS: ['http.allowedHosts', 'list'],
  TRUST_PROXY: ['http.trustProxy', 'list'],
  BATCH_CONCURRENCY: ['http.batchConcurrency', 'integer'],
  SHUTDOWN_GRACE_MS: ['http.shutdownGraceMs', 'integer'],
  METRICS_PUBLIC: ['http.metricsPublic', 'boolean'],
  REQUEST_TIMEOUT_MS: ['http.requestTimeoutMs', 'integer'],
  MAX_CONNECTIONS: ['http.maxConnections', 'integer'],
  BODY_IDLE_TIMEOUT_MS: ['http.bodyIdleTimeoutMs', 'integer'],
  ADMIN_PORT: ['http.adminPort', 'integer'],
  ADMIN_HOST: ['http.adminHost', 'string'],
  AUTH_FAILURE_MAX: ['http.authFailures.max', 'integer'],
  AUTH_FAILURE_WINDOW_MS: ['http.authFailures.windowMs', 'integer'],
  RATE_LIMIT_MAX: ['http.rateLimit.max', 'integer'],
  RATE_LIMIT_WINDOW_MS: ['http.rateLimit.timeWindowMs', 'integer'],
  IN_FLIGHT_PER_CONNECTION: ['http.inFlight.perConnection', 'integer'],
  IN_FLIGHT_PER_KEY: ['http.inFlight.perKey', 'integer'],
  IN_FLIGHT_MAX: ['http.inFlight.total', 'integer'],
  MAX_EVENT_LOOP_DELAY_MS: ['http.pressure.maxEventLoopDelayMs', 'integer'],
  MAX_HEAP_USED_BYTES: ['http.pressure.maxHeapUsedBytes', 'integer'],
  MAX_RSS_BYTES: ['http.pressure.maxRssBytes', 'integer'],
  MCP_ALLOWED_ORIGINS: ['mcp.allowedOrigins', 'list'],
  MCP_MAX_SESSIONS: ['mcp.maxSessions', 'integer'],
  MCP_SESSION_IDLE_MS: ['mcp.sessionIdleMs', 'integer'],
  MCP_MAX_SESSIONS_PER_KEY: ['mcp.maxSessionsPerKey', 'integer'],
  MCP_SESSION_MAX_MS: ['mcp.sessionMaxMs', 'integer'],
  MCP_MAX_STREAMS_PER_KEY: ['mcp.maxStreamsPerKey', 'integer'],
  MCP_STREAM_MAX_MS: ['mcp.streamMaxMs', 'integer'],
  MCP_UPSTREAM_MAX_MESSAGE_BYTES: ['mcp.upstreamMaxMessageBytes', 'integer'],
  MCP_TASK_AFTER_MS: ['mcp.taskAfterMs', 'integer'],
  TOOL_TIMEOUT_MS: ['dispatch.defaultTimeoutMs', 'integer'],
  MAX_TOOL_TIMEOUT_MS: ['dispatch.maxTimeoutMs', 'integer'],
  MAX_RESULT_CHARS: ['dispatch.maxResultChars', 'integer'],
  MAX_MEDIA_BYTES: ['dispatch.maxMediaBytes', 'integer'],
  RESULTS_MAX_TOTAL_BYTES: ['results.maxTotalBytes', 'integer'],
  RESULTS_MAX_BYTES_PER_KEY: ['results.maxBytesPerKey', 'integer'],
  RESULTS_MAX_RESULT_BYTES: ['results.maxResultBytes', 'integer'],
  RESULTS_TTL_MS: ['results.ttlMs', 'integer'],
  REDIS_URL: ['redis.url', 'string'],
  REDIS_KEY_PREFIX: ['redis.keyPrefix', 'string'],
  REDIS_COMMAND_TIMEOUT_MS: ['redis.commandTimeoutMs', 'integer'],
  REDIS_CONNECT_TIMEOUT_MS: ['redis.connectTimeoutMs', 'integer'],
  IDEMPOTENCY_TTL_MS: ['idempotency.ttlMs', 'integer'],
  IDEMPOTENCY_MAX_TOTAL_BYTES: ['idempotency.maxTotalBytes', 'integer'],
  IDEMPOTENCY_MAX_BYTES_PER_KEY: ['idempotency.maxBytesPerKey', 'integer'],
  CALLS_TTL_MS: ['calls.ttlMs', 'integer'],
  CALLS_MAX_WAIT_S: ['calls.maxWaitS', 'integer'],
  CALLS_ANSWER_TIMEOUT_MS: ['calls.answerTimeoutMs', 'integer'],
  CALLS_MAX_RUNNING_PER_CALLER: ['calls.maxRunningPerCaller', 'integer'],
  CALLS_MAX_TOTAL_BYTES: ['calls.maxTotalBytes', 'integer'],
  CALLS_MAX_BYTES_PER_CALLER: ['calls.maxBytesPerCaller', 'integer'],
  CALLS_LEASE_MS: ['calls.leaseMs', 'integer'],
  CALLS_KEEP_ALIVE_MS: ['calls.keepAliveMs', 'integer'],
  GATEWAY_ALLOW_OPEN: ['auth.allowOpen', 'boolean'],
  OAUTH_ISSUER: ['auth.oauth.issuer', 'string'],
  OAUTH_RESOURCE: ['auth.oauth.resource', 'string'],
  OAUTH_ADMIN_SCOPE: ['auth.oauth.adminScope', 'string'],
  OAUTH_CLIENT_ID: ['auth.oauth.client.id', 'string'],
  OAUTH_CLIENT_SECRET: ['auth.oauth.client.secret', 'string'],
  OAUTH_CONSOLE_CLIENT_ID: ['auth.oauth.consoleClientId', 'string'],
  GATEWAY_ENABLE_TERMINAL: ['terminal.enabled', 'boolean'],
  TERMINAL_SANDBOX: ['terminal.sandbox', 'string'],
  TERMINAL_MAX_MEMORY_BYTES: ['terminal.limits.memoryBytes', 'integer'],
  TERMINAL_MAX_PROCESSES: ['terminal.limits.processes', 'integer'],
  TERMINAL_MAX_CPU_SECONDS: ['terminal.limits.cpuSeconds', 'integer'],
  TERMINAL_MAX_FILE_BYTES: ['terminal.limits.fileSizeBytes', 'integer'],
  TERMINAL_UID: ['terminal.user.uid', 'integer'],
  TERMINAL_GID: ['terminal.user.gid', 'integer'],
  WEB_ALLOW_HOSTS: ['web.allowHosts', 'list'],
  WEB_SEARCH_BACKEND: ['web.search.backend', 'string'],
  SEARXNG_URL: ['web.search.searxngUrl', 'string'],
  BRAVE_API_KEY: ['web.search.braveApiKey', 'string'],
  GATEWAY_SECRET_ENV: ['logging.secretEnv', 'list'],
  AUDIT_ENABLED: ['audit.enabled', 'boolean'],
  AUDIT_FILE: ['audit.file', 'string'],
  AUDIT_STDOUT: ['audit.stdout', 'boolean'],
  AUDIT_OTLP: ['audit.otlp', 'boolean'],
  OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: ['audit.otlpEndpoint', 'string'],
  AUDIT_MAX_FILE_BYTES: ['audit.maxFileBytes', 'integer'],
  AUDIT_KEEP_FILES: ['audit.keepFiles', 'integer'],
  AUDIT_ARGUMENTS: ['audit.arguments', 'boolean'],
  AUDIT_MEMORY_LINES: ['audit.memoryLines', 'integer'],
  CODE_MODE: ['code.enabled', 'boolean'],
  CODE_WORKERS: ['code.workers', 'integer'],
  CODE_MEMORY_MB: ['code.memoryMb', 'integer'],
  CODE_STACK_KB: ['code.stackKb', 'integer'],
  CODE_MAX_CALLS: ['code.maxCalls', 'integer'],
  CODE_MAX_CONCURRENT_CALLS: ['code.maxConcurrentCalls', 'integer'],
  CODE_MAX_OUTPUT_BYTES: ['code.maxOutputBytes', 'integer'],
  CODE_MAX_CODE_CHARS: ['code.maxCodeChars', 'integer'],
  CODE_MAX_SCRIPTS_PER_CALLER: ['code.maxScriptsPerCaller', 'integer'],
  // The standard OpenTelemetry variables, read the way its SDKs read them.
  OTEL_EXPORTER_OTLP_ENDPOINT: ['tracing.endpoint', 'string'],
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: ['tracing.tracesEndpoint', 'string'],
  OTEL_EXPORTER_OTLP_HEADERS: ['tracing.headers', 'pairs'],
  OTEL_EXPORTER_OTLP_TIMEOUT: ['tracing.timeoutMs', 'integer'],
  OTEL_SERVICE_NAME: ['tracing.serviceName', 'string'],
  OTEL_TRACES_SAMPLER: ['tracing.sampler', 'string'],
  OTEL_TRACES_SAMPLER_ARG: ['tracing.samplerArg', 'number'],
  OTEL_SDK_DISABLED: ['tracing.disabled', 'boolean'],
  OTEL_TRACES_EXPORTER: ['tracing.exporter', 'string'],
  // The traces-specific variables come after the general ones: later entries win (fromEnvironment).
  OTEL_EXPORTER_OTLP_PROTOCOL: ['tracing.protocol', 'string'],
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: ['tracing.protocol', 'string'],
  OTEL_EXPORTER_OTLP_COMPRESSION: ['tracing.compression', 'string'],
  OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: ['tracing.compression', 'string'],
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: ['tracing.headers', 'pairs'],
  OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: ['tracing.timeoutMs', 'integer'],
  OTEL_RESOURCE_ATTRIBUTES: ['tracing.resourceAttributes', 'pairs'],
  OTEL_BSP_SCHEDULE_DELAY: ['tracing.batch.scheduleDelayMs', 'integer'],
  OTEL_BSP_EXPORT_TIMEOUT: ['tracing.batch.exportTimeoutMs', 'integer'],
  OTEL_BSP_MAX_QUEUE_SIZE: ['tracing.batch.maxQueueSize', 'integer'],
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: ['tracing.batch.maxExportBatchSize', 'integer'],
  GATEWAY_WATCH_CONFIG: ['reload.watchConfig', 'boolean']
})

function convert (raw: string, kind: Kind): unknown {
  const text = raw.trim()
  if (kind === 'integer') return /^-?\d+$/.test(text) ? Number(text) : raw
  if (kind === 'number') return /^-?(\d+\.?\d*|\.\d+)$/.test(text) ? Number(text) : raw
  if (kind === 'pairs') return pairsOf(text) ?? raw
  if (kind === 'boolean') {
    if (/^(true|1|yes|on)$/i.test(text)) return true
    if (/^(false|0|no|off)$/i.test(text)) return false
    return raw
  }
  if (kind === 'list') return text === '' ? [] : text.split(',').map((item) => item.trim()).filter(Boolean)
  return raw
}

/**
 * `name=value,name=value` (the W3C Baggage form OTEL_EXPORTER_OTLP_HEADERS uses, values
 * percent-encoded) as an object; undefined when an item has no `=`, so validation reports the raw text.
 */
function pairsOf (text: string): Record<string, string> | undefined {
  const pairs: Record<string, string> = {}
  for (const item of text.split(',')) {
    if (item.trim() === '') continue
    const at = item.indexOf('=')
    if (at <= 0) return undefined
    try {
      pairs[decodeURIComponent(item.slice(0, at).trim())] = decodeURIComponent(item.slice(at + 1).trim())
    } catch {
      return undefined
    }
  }
  return pairs
}

function setPath (target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.')
  let node = target
  for (const key of keys.slice(0, -1)) {
    node[key] ??= {}
    node = node[key] as Record<string, unknown>
  }
  node[keys[keys.length - 1]] = value
}

/** The configuration fields set by the environment, and which variable set each (for error messages). */
export function fromEnvironment (env: NodeJS.ProcessEnv): { values: Record<string, unknown>, sources: Map<string, string> } {
  const values: Record<string, unknown> = {}
  const sources = new Map<string, string>()
  for (const [name, [path, kind]] of Object.entries(ENV_VARIABLES)) {
    const raw = env[name]
    // An empty variable counts as unset, as shells and container runtimes often leave them so.
    if (raw === undefined || raw === '') continue
    setPath(values, path, convert(raw, kind))
    sources.set(path, `${name}=${JSON.stringify(raw)}`)
  }
  return { values, sources }
}
