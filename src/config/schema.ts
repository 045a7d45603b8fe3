// The gateway configuration as one TypeBox schema: it validates the merged environment and file at
// boot, fills defaults, documents every field, and gives the typed object handed to buildApp.
import { Type, type Static } from 'typebox'
import { AuditSchema } from './audit-schema.ts'
import { CodeSchema } from './code-schema.ts'
import { McpHttpServerSchema, McpStdioServerSchema } from './mcp-server-schema.ts'
import { TrustSchema } from './trust-schema.ts'

const PositiveMs = (description: string, defaultValue: number) =>
  Type.Integer({ minimum: 1, maximum: 2_147_483_647, default: defaultValue, description })

const ToolsetNames = (description: string) => Type.Array(Type.String({ minLength: 1 }), { description })

export const ApiKeySchema = Type.Object({
  name: Type.String({ minLength: 1, description: 'A label for logs and metrics; never the key itself.' }),
  sha256: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'SHA-256 digest of the key, hex (`printf %s "$KEY" | sha256sum`).' })),
  env: Type.Optional(Type.String({ minLength: 1, description: 'Name of an environment variable holding the key itself.' })),
  toolsets: Type.Optional(ToolsetNames('Toolsets this key may see and call; absent = all.'))
}, { additionalProperties: false, description: 'One API key: give exactly one of sha256 or env.' })

export const OAuthSchema = Type.Object({
  issuer: Type.String({ pattern: '^https?://', description: 'The identity provider\'s issuer URL (OAUTH_ISSUER): its metadata is found by RFC 8414, else OpenID discovery, and its signing keys (JWKS) fetched and cached.' }),
  resource: Type.String({ pattern: '^https?://', description: 'This gateway as a protected resource (OAUTH_RESOURCE, RFC 8707), usually the public URL of its /mcp: an access token must name it, or its origin, in `aud`.' }),
  introspection: Type.Boolean({ default: false, description: 'Check tokens that are not JWTs (opaque) at the provider\'s introspection endpoint (RFC 7662), as `client`.' }),
  client: Type.Optional(Type.Object({
    id: Type.String({ minLength: 1, description: 'The gateway\'s client id at the provider (OAUTH_CLIENT_ID).' }),
    secret: Type.String({ minLength: 1, description: 'Its secret (OAUTH_CLIENT_SECRET); never logged.' })
  }, { additionalProperties: false, description: 'The gateway\'s own client at the provider, for introspection and token exchange.' })),
  scopes: Type.Record(Type.String({ minLength: 1 }), ToolsetNames('Toolsets the scope grants (`all` = every toolset).'), {
    default: {},
    description: 'Scopes of an access token, mapped to the toolsets they grant (`{"tools:file": ["file"], "tools:all": ["all"]}`); also the `scopes_supported` clients are told.'
  }),
  claims: Type.Record(Type.String({ minLength: 1 }), Type.Record(Type.String(), ToolsetNames('Toolsets this claim value grants.')), {
    default: {},
    description: 'Claims of an access token (a string or a list of strings, such as `groups`), their values mapped to toolsets: `{"groups": {"eng": ["file", "web"]}}`.'
  }),
  consoleClientId: Type.Optional(Type.String({ minLength: 1, description: 'The public client (authorization code with PKCE, redirect URI `<gateway origin>/console/`) registered at the provider for the operator console (OAUTH_CONSOLE_CLIENT_ID); without it the console signs in with API keys only.' })),
  adminScope: Type.Optional(Type.String({ minLength: 1, description: 'A token whose scopes include this one is an operator (OAUTH_ADMIN_SCOPE): it may use the admin routes, such as approving a held tool.' })),
  principalClaim: Type.String({ minLength: 1, default: 'sub', description: 'The claim that names the caller; the principal is `user:<its value>`.' }),
  clockSkewSeconds: Type.Integer({ minimum: 0, maximum: 300, default: 30, description: 'Tolerance of exp and nbf against this machine\'s clock.' }),
  jwksCooldownMs: Type.Integer({ minimum: 1000, default: 30_000, description: 'Least time between two fetches of the provider\'s keys for a token signed with a key id not yet known.' }),
  requestTimeoutMs: Type.Integer({ minimum: 100, default: 5_000, description: 'Deadline of one request to the provider (metadata, keys, introspection, token exchange).' })
}, { additionalProperties: false, description: 'Sign-in with an OAuth 2.1 / OpenID provider: access tokens accepted beside API keys.' })

export const CustomToolsetSchema = Type.Object({
  description: Type.Optional(Type.String({ description: 'What the toolset is for.' })),
  tools: Type.Optional(ToolsetNames('Tool names in the toolset.')),
  includes: Type.Optional(ToolsetNames('Other toolsets included whole.'))
}, { additionalProperties: false })

export const ToolOverrideSchema = Type.Object({
  timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Deadline of this tool in ms, replacing its own.' })),
  maxResultSizeChars: Type.Optional(Type.Integer({ minimum: 0, description: 'Result cap of this tool in characters, replacing its own.' }))
}, { additionalProperties: false })

export { MCP_PROTOCOL_SETTINGS, McpHttpServerSchema, McpStdioServerSchema } from './mcp-server-schema.ts'
export const PluginSchema = Type.Union([
  Type.String({ minLength: 1, description: 'A module path (relative to the config file\'s folder or absolute) or an installed package name.' }),
  Type.Object({
    module: Type.String({ minLength: 1, description: 'A module path or an installed package name.' }),
    allowToolOverride: Type.Optional(Type.Boolean({ description: 'Let this plugin replace tools of other toolsets.' })),
    required: Type.Optional(Type.Boolean({ description: 'Refuse to start when this plugin fails to load (a policy the gateway must not run without).' })),
    options: Type.Optional(Type.Unknown({ description: 'Handed to the plugin as ctx.options.' }))
  }, { additionalProperties: false })
], { description: 'A plugin module exporting register(ctx).' })

export const ConfigSchema = Type.Object({
  host: Type.String({ minLength: 1, default: '127.0.0.1', description: 'Address to listen on (HOST).' }),
  port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080, description: 'Port to listen on (PORT); 0 picks a free one.' }),
  logLevel: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info', description: 'pino log level (LOG_LEVEL).' }),
  toolsDir: Type.String({ minLength: 1, description: 'Folder scanned for built-in tool modules (TOOLS_DIR); setting it replaces the shipped tools.' }),
  extraToolsDirs: Type.Array(Type.String({ minLength: 1 }), {
    default: [],
    description: 'Folders of your own tool modules, discovered after toolsDir (EXTRA_TOOLS_DIRS, comma-separated).'
  }),
  searchTool: Type.Boolean({ default: false, description: 'Serve the search_tools tool (toolset `discovery`), with which a model finds tools for a task on demand; for large catalogues (SEARCH_TOOL).' }),
  workspaceRoot: Type.String({ minLength: 1, default: './workspace', description: 'The only folder file tools may touch (WORKSPACE_ROOT); created on first use.' }),
  stateDir: Type.String({ minLength: 1, default: './state', description: 'The gateway\'s own state folder (STATE_DIR): the pins of trusted tools; mount it in a container so that it outlives one.' }),
  workspaceMaxBytes: Type.Integer({ minimum: 1, default: 1_073_741_824, description: 'Most bytes the files of the workspace may hold together; write_file and patch refuse a write past it (WORKSPACE_MAX_BYTES).' }),
  workspaceMaxFiles: Type.Integer({ minimum: 1, default: 250_000, description: 'Most files and folders the workspace may hold together; write_file and patch refuse to create one past it (WORKSPACE_MAX_FILES).' }),
  http: Type.Object({
    bodyLimitBytes: Type.Integer({ minimum: 1024, default: 1_048_576, description: 'Largest request body; larger answers 413 (BODY_LIMIT_BYTES).' }),
    batchConcurrency: Type.Integer({ minimum: 1, maximum: 256, default: 8, description: 'Calls of one POST /dispatch batch run at once (BATCH_CONCURRENCY).' }),
    maxBatchSize: Type.Integer({ minimum: 1, maximum: 1024, default: 128, description: 'Most tool calls in one batch.' }),
    requestTimeoutMs: PositiveMs('Longest time to receive one request, headers and body; a slower one is answered 408 and its connection closed (REQUEST_TIMEOUT_MS).', 30_000),
    bodyIdleTimeoutMs: PositiveMs('A request body that stops arriving for this long is answered 408 and its connection closed (BODY_IDLE_TIMEOUT_MS).', 5_000),
    adminPort: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, description: 'A second port serving only /healthz, /readyz and /metrics, without keys and outside the traffic limits, so probes and scrapes answer while traffic saturates the main port; absent = none (ADMIN_PORT). Keep it inside the cluster.' })),
    adminHost: Type.Optional(Type.String({ minLength: 1, description: 'Address of the admin port; absent = the main host (ADMIN_HOST).' })),
    maxConnections: Type.Integer({ minimum: 1, default: 512, description: 'Open connections served at once; more are closed on arrival, so slow clients cannot exhaust file descriptors (MAX_CONNECTIONS).' }),
    authFailures: Type.Object({
      max: Type.Integer({ minimum: 1, default: 10, description: 'Failed authentications one client address may make per window; then 429 with Retry-After until the window ends (AUTH_FAILURE_MAX).' }),
      windowMs: PositiveMs('The window of authFailures.max (AUTH_FAILURE_WINDOW_MS).', 60_000)
    }, { additionalProperties: false, default: {}, description: 'Limit on key guessing, per client address.' }),
    allowedHosts: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description: 'Host names requests may address (ALLOWED_HOSTS, comma-separated; `*` = any). Empty: on a loopback HOST only localhost, 127.0.0.1 and [::1] (DNS-rebinding protection), elsewhere any.'
    }),
    trustProxy: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description: 'The proxies in front of the gateway (TRUST_PROXY, comma-separated): addresses, CIDR ranges, or loopback / linklocal / uniquelocal. A request from one of them is taken to come from the last address of its X-Forwarded-For that is not a trusted proxy, for the per-address limits and the logs. Empty: the connection\'s address, whatever X-Forwarded-For says.'
    }),
    metricsPublic: Type.Boolean({ default: false, description: 'Serve /metrics (whose labels name tools) without a key even when keys are configured; else it needs a key not limited to toolsets (METRICS_PUBLIC).' }),
    shutdownGraceMs: PositiveMs('On SIGTERM, how long in-flight calls may finish (SHUTDOWN_GRACE_MS).', 30_000),
    rateLimit: Type.Object({
      max: Type.Optional(Type.Integer({ minimum: 1, description: 'Requests one caller (API key, else client address) may make per window; absent = no limit (RATE_LIMIT_MAX).' })),
      timeWindowMs: PositiveMs('The window of rateLimit.max (RATE_LIMIT_WINDOW_MS).', 60_000)
    }, { additionalProperties: false, default: {}, description: 'Per-caller rate limit; health, readiness and metrics are exempt.' }),
    inFlight: Type.Object({
      perConnection: Type.Integer({ minimum: 1, default: 16, description: 'Requests one connection may have in flight at once (pipelined); more are answered 429 with Retry-After (IN_FLIGHT_PER_CONNECTION).' }),
      perKey: Type.Integer({ minimum: 1, default: 64, description: 'Requests one caller (API key, else client address) may have in flight at once; more are answered 429 with Retry-After (IN_FLIGHT_PER_KEY).' }),
      total: Type.Integer({ minimum: 1, default: 256, description: 'Requests in flight at once in all; more are answered 503 with Retry-After (IN_FLIGHT_MAX).' })
    }, { additionalProperties: false, default: {}, description: 'Work in flight, bounded so that no caller can queue without limit; health, readiness, metrics and the MCP notification stream are exempt.' }),
    pressure: Type.Object({
      maxEventLoopDelayMs: Type.Integer({ minimum: 0, default: 1000, description: 'Past this event-loop delay, requests are answered 503 with Retry-After until it falls; 0 = not checked (MAX_EVENT_LOOP_DELAY_MS).' }),
      maxHeapUsedBytes: Type.Integer({ minimum: 0, default: 0, description: 'Past this much V8 heap, requests are answered 503 with Retry-After; 0 = not checked (MAX_HEAP_USED_BYTES).' }),
      maxRssBytes: Type.Integer({ minimum: 0, default: 0, description: 'Past this resident memory, requests are answered 503 with Retry-After; 0 = not checked (MAX_RSS_BYTES; the Kubernetes manifests set it below the pod limit).' })
    }, { additionalProperties: false, default: {}, description: 'Back-pressure on the process itself (@fastify/under-pressure); health, readiness and metrics are exempt.' })
  }, { additionalProperties: false, default: {} }),
  mcp: Type.Object({
    allowedOrigins: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description: 'Browser origins allowed to call /mcp (MCP_ALLOWED_ORIGINS, comma-separated; `*` = any); a request with any other Origin header is refused 403 (DNS-rebinding protection). Empty: on a loopback host, pages of localhost / 127.0.0.1 / [::1] on any port; elsewhere none. Requests without Origin (non-browser clients) pass.'
    }),
    maxSessions: Type.Integer({ minimum: 0, default: 1000, description: 'MCP sessions kept at once (MCP_MAX_SESSIONS); past it, or at 0, clients are served statelessly.' }),
    maxSessionsPerKey: Type.Integer({ minimum: 0, default: 100, description: 'MCP sessions one caller (API key, else client address) may hold at once (MCP_MAX_SESSIONS_PER_KEY); past it its clients are served statelessly, so one caller cannot take every session.' }),
    sessionIdleMs: PositiveMs('An MCP session with no request for this long, and none open (a call, its notification stream), is closed (MCP_SESSION_IDLE_MS).', 600_000),
    sessionMaxMs: PositiveMs('An MCP session is closed this long after it opened, busy or not; the client initializes again (MCP_SESSION_MAX_MS).', 86_400_000),
    maxStreamsPerKey: Type.Integer({ minimum: 0, default: 16, description: 'MCP notification streams (GET /mcp) one caller may hold open at once; more are answered 429 with Retry-After (MCP_MAX_STREAMS_PER_KEY).' }),
    streamMaxMs: PositiveMs('A notification stream (GET /mcp) is ended this long after it opened; the client opens it again (MCP_STREAM_MAX_MS).', 1_800_000),
    pageSize: Type.Integer({ minimum: 1, maximum: 10_000, default: 500, description: 'Tools per tools/list page; more come through nextCursor.' }),
    taskAfterMs: Type.Integer({ minimum: 0, default: 2_000, description: 'A tools/call from a client that declares the Tasks extension (io.modelcontextprotocol/tasks) is answered with a task handle when it has not ended this long after it started; 0: always a task (MCP_TASK_AFTER_MS).' }),
    upstreamMaxMessageBytes: Type.Integer({
      minimum: 1024,
      default: 10_485_760,
      description: 'Largest message one configured MCP server may send, counted decoded (a stdio line, an HTTP JSON answer, one SSE event; gzip, br and deflate counted after decoding); past it the download stops and that call fails naming the server and the cap, the connection stays up (MCP_UPSTREAM_MAX_MESSAGE_BYTES; per server: maxMessageBytes).'
    })
  }, { additionalProperties: false, default: {}, description: 'The MCP server at /mcp.' }),
  dispatch: Type.Object({
    defaultTimeoutMs: PositiveMs('Deadline of a tool that sets none (TOOL_TIMEOUT_MS).', 60_000),
    maxTimeoutMs: PositiveMs('Ceiling for X-Tool-Timeout-Ms (MAX_TOOL_TIMEOUT_MS).', 600_000),
    maxResultChars: Type.Integer({ minimum: 0, default: 1_000_000, description: 'Ceiling for X-Max-Result-Chars (MAX_RESULT_CHARS).' }),
    maxMediaBytes: Type.Integer({ minimum: 0, default: 10_485_760, description: 'Bytes of images and audio one call may return, all items together; an item past it is dropped with a note in the text (MAX_MEDIA_BYTES).' })
  }, { additionalProperties: false, default: {} }),
  results: Type.Object({
    maxTotalBytes: Type.Integer({ minimum: 0, default: 67_108_864, description: 'Memory all kept results may take together (2 bytes per character); past it the key holding the most loses its oldest; 0 keeps none (RESULTS_MAX_TOTAL_BYTES).' }),
    maxBytesPerKey: Type.Optional(Type.Integer({ minimum: 0, description: 'Memory one API key\'s kept results may take together, so that one key cannot evict the others\' results: past it that key\'s own oldest go first; default a quarter of maxTotalBytes. Also bounds each key\'s results in Redis (RESULTS_MAX_BYTES_PER_KEY).' })),
    maxResultBytes: Type.Integer({ minimum: 0, default: 16_777_216, description: 'A cut result larger than this is not kept, and its notice says nothing of reading the rest (RESULTS_MAX_RESULT_BYTES).' }),
    ttlMs: PositiveMs('How long a cut result stays readable after its call (RESULTS_TTL_MS).', 900_000)
  }, { additionalProperties: false, default: {}, description: 'Where the full text of results cut to their size cap is kept, for GET /results/:id and read_result.' }),
  redis: Type.Object({
    url: Type.Optional(Type.String({ pattern: '^rediss?://', description: 'A Redis the replicas share (REDIS_URL, redis:// or rediss://, credentials in the URL): rate-limit counters, kept results and idempotency records live there. Unset: all in this process\'s memory. Unreachable: each replica falls back to its own memory until it is back (see /readyz).' })),
    keyPrefix: Type.String({ minLength: 1, maxLength: 64, default: 'tool-gateway:', description: 'Prefix of every key the gateway writes, so that one Redis can serve several deployments (REDIS_KEY_PREFIX).' }),
    commandTimeoutMs: PositiveMs('A Redis command slower than this counts as a failure and the request is served from memory (REDIS_COMMAND_TIMEOUT_MS).', 500),
    connectTimeoutMs: PositiveMs('How long start-up waits for Redis before serving without it (REDIS_CONNECT_TIMEOUT_MS); it keeps reconnecting in the background.', 2_000)
  }, { additionalProperties: false, default: {}, description: 'State shared by replicas; without it every replica keeps its own.' }),
  idempotency: Type.Object({
    ttlMs: PositiveMs('How long the answer of a call made with an Idempotency-Key is replayed to the same key (IDEMPOTENCY_TTL_MS).', 86_400_000),
    maxTotalBytes: Type.Integer({ minimum: 0, default: 33_554_432, description: 'Memory the answers kept in this process may take together (not in Redis); past it the key holding the most loses its oldest (IDEMPOTENCY_MAX_TOTAL_BYTES).' }),
    maxBytesPerKey: Type.Optional(Type.Integer({ minimum: 0, description: 'Bytes one API key\'s kept answers may take, in this process and in Redis, so that one key\'s flood cannot evict another key\'s answer (whose retry would then run again): past it that key\'s own oldest go first; default a quarter of maxTotalBytes (IDEMPOTENCY_MAX_BYTES_PER_KEY).' }))
  }, { additionalProperties: false, default: {}, description: 'Replays of POST /dispatch calls retried with the same Idempotency-Key header.' }),
  calls: Type.Object({
    ttlMs: PositiveMs('How long the outcome of a call made with Prefer: respond-async (or one that asked its caller a question) stays readable with GET /calls/:id after it ended (CALLS_TTL_MS).', 3_600_000),
    maxWaitS: Type.Integer({ minimum: 0, maximum: 3600, default: 60, description: 'The longest GET /calls/:id?wait= may hold a request, in seconds; a longer wait is cut to it and the answer says so in X-Wait-Capped (CALLS_MAX_WAIT_S).' }),
    answerTimeoutMs: PositiveMs('How long a tool\'s question (ctx.ask) waits for its caller\'s answers; past it the question fails naming that nobody answered, and the call stops (CALLS_ANSWER_TIMEOUT_MS).', 600_000),
    maxRunningPerCaller: Type.Integer({ minimum: 1, default: 16, description: 'Calls made with Prefer: respond-async one caller may have running at once on one replica; more are answered 429 with Retry-After (CALLS_MAX_RUNNING_PER_CALLER).' }),
    maxTotalBytes: Type.Integer({ minimum: 0, default: 33_554_432, description: 'Memory the outcomes kept in this process may take together (2 bytes per character; not in Redis); past it the caller holding the most loses its oldest (CALLS_MAX_TOTAL_BYTES).' }),
    maxBytesPerCaller: Type.Optional(Type.Integer({ minimum: 0, description: 'Bytes one caller\'s kept outcomes may take, in this process and in Redis (for all replicas together): past it that caller\'s own oldest go first; an outcome larger than this alone is not kept (the call reads as lost, saying why); default a quarter of maxTotalBytes (CALLS_MAX_BYTES_PER_CALLER).' })),
    leaseMs: PositiveMs('With Redis: how long a running call outlives the replica running it, which renews its lease every third of this; past it the call reads as lost (CALLS_LEASE_MS).', 15_000),
    keepAliveMs: PositiveMs('A POST /dispatch/:name streamed as server-sent events (Accept: text/event-stream) sends a comment this often while nothing else is sent, so that proxies that close idle connections keep it (CALLS_KEEP_ALIVE_MS).', 15_000)
  }, { additionalProperties: false, default: {}, description: 'Calls that outlive their request: Prefer: respond-async, GET /calls/:id, questions to the caller, progress streamed as server-sent events.' }),
  availability: Type.Object({
    ttlMs: PositiveMs('How long an availability verdict is reused.', 30_000),
    graceMs: Type.Integer({ minimum: 0, default: 60_000, description: 'A failing check this soon after a success counts as transient.' }),
    probeTimeoutMs: PositiveMs('Deadline of one availability check.', 2_000)
  }, { additionalProperties: false, default: {} }),
  trust: TrustSchema,
  auth: Type.Object({
    keys: Type.Array(ApiKeySchema, { default: [], description: 'API keys; none = the gateway is open (loopback only unless allowOpen).' }),
    allowOpen: Type.Boolean({ default: false, description: 'Allow serving without keys on a non-loopback address (GATEWAY_ALLOW_OPEN).' }),
    oauth: Type.Optional(OAuthSchema)
  }, { additionalProperties: false, default: {} }),
  toolsets: Type.Record(Type.String(), CustomToolsetSchema, { default: {}, description: 'Custom toolsets by name.' }),
  tools: Type.Record(Type.String(), ToolOverrideSchema, { default: {}, description: 'Per-tool overrides by tool name.' }),
  logging: Type.Object({
    secretArguments: Type.Array(Type.String({ minLength: 1 }), { default: [], description: 'Argument names whose values are redacted from logs and from error content.' }),
    secretEnv: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description: 'Environment variables whose values are redacted from error content (GATEWAY_SECRET_ENV, comma-separated).'
    })
  }, { additionalProperties: false, default: {} }),
  web: Type.Object({
    allowHosts: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description: 'Hosts, IP addresses or CIDR networks web tools may reach even when private or loopback (WEB_ALLOW_HOSTS, comma-separated).'
    }),
    maxDownloadBytes: Type.Integer({ minimum: 1024, default: 5_000_000, description: 'Largest page web_extract downloads.' }),
    fetchTimeoutMs: PositiveMs('Deadline of one page download.', 15_000),
    search: Type.Object({
      backend: Type.Optional(Type.Enum(['searxng', 'brave'], { description: 'web_search backend (WEB_SEARCH_BACKEND); default: whichever is configured.' })),
      searxngUrl: Type.Optional(Type.String({ minLength: 1, description: 'Base URL of a SearXNG instance with the JSON format enabled (SEARXNG_URL).' })),
      braveApiKey: Type.Optional(Type.String({ minLength: 1, description: 'Brave Search API key (BRAVE_API_KEY).' }))
    }, { additionalProperties: false, default: {} })
  }, { additionalProperties: false, default: {} }),
  mcpServers: Type.Record(Type.String({ pattern: '^[A-Za-z0-9_./-]{1,64}$' }), Type.Union([McpStdioServerSchema, McpHttpServerSchema]), {
    // Without it a name outside the pattern is simply not checked, and accepted.
    additionalProperties: false,
    default: {},
    description: 'MCP servers by name, in the widely used { command, args, env, cwd } | { url, headers } shape. A name may be in the MCP registry\'s reverse-DNS style (`io.github.user/server`): `.` and `/` become `_` in tool names.'
  }),
  reload: Type.Object({
    watchConfig: Type.Boolean({ default: false, description: 'Reload when the GATEWAY_CONFIG file changes, as on SIGHUP (GATEWAY_WATCH_CONFIG).' }),
    debounceMs: Type.Integer({ minimum: 0, maximum: 60_000, default: 300, description: 'Quiet time after the last change of the file before the reload (an editor writes in several steps).' })
  }, { additionalProperties: false, default: {}, description: 'Configuration reload without a restart (SIGHUP, or the watch of the file).' }),
  audit: AuditSchema,
  code: CodeSchema,
  plugins: Type.Array(PluginSchema, { default: [], description: 'Plugin modules, loaded after built-in tools and MCP servers.' }),
  pluginsDir: Type.Optional(Type.String({ minLength: 1, description: 'Folder relative plugin paths and package names resolve from; default: the config file\'s folder, else the working folder.' })),
  terminal: Type.Object({
    enabled: Type.Boolean({ default: false, description: 'Serve the terminal toolset (GATEWAY_ENABLE_TERMINAL).' }),
    maxOutputChars: Type.Integer({ minimum: 1000, default: 50_000, description: 'Output kept per command (40 % head, 60 % tail).' }),
    envAllowlist: Type.Array(Type.String({ minLength: 1 }), {
      default: ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TERM', 'TMPDIR', 'TZ', 'USER'],
      description: 'Environment variables passed to commands; nothing else leaks in.'
    }),
    sandbox: Type.Enum(['auto', 'bwrap', 'none'], {
      default: 'auto',
      description: 'Run commands in a bubblewrap sandbox: auto = when bwrap works, bwrap = required, none = never (TERMINAL_SANDBOX).'
    }),
    limits: Type.Object({
      memoryBytes: Type.Integer({ minimum: 16 * 1024 * 1024, default: 1024 * 1024 * 1024, description: 'Memory one process of a command may allocate (its data segment: heap and anonymous mappings; TERMINAL_MAX_MEMORY_BYTES).' }),
      processes: Type.Integer({ minimum: 1, default: 256, description: 'Processes the commands\' user may have at once (TERMINAL_MAX_PROCESSES); the kernel does not apply it to root.' }),
      cpuSeconds: Type.Integer({ minimum: 1, default: 600, description: 'CPU time one process may use; then it is killed (TERMINAL_MAX_CPU_SECONDS).' }),
      fileSizeBytes: Type.Integer({ minimum: 1, default: 1024 * 1024 * 1024, description: 'Largest file a command may write (TERMINAL_MAX_FILE_BYTES).' }),
      required: Type.Boolean({ default: true, description: 'Without prlimit the terminal is unavailable; false runs commands without limits, which GET /tools says.' })
    }, { additionalProperties: false, default: {}, description: 'Limits of every command, set with prlimit(1) on its shell and inherited by all it starts.' }),
    user: Type.Object({
      uid: Type.Integer({ minimum: 1, maximum: 4_294_967_294, default: 65534, description: 'User id commands run as when the gateway runs as root (TERMINAL_UID); the workspace is handed to it before each command.' }),
      gid: Type.Integer({ minimum: 1, maximum: 4_294_967_294, default: 65534, description: 'Group id commands run as when the gateway runs as root (TERMINAL_GID).' }),
      required: Type.Boolean({ default: true, description: 'As root, when commands cannot be switched to uid (setpriv missing, or the switch fails), the terminal is unavailable; false runs them as root, which GET /tools says.' })
    }, { additionalProperties: false, default: {}, description: 'The unprivileged user commands run as when the gateway runs as root; ignored otherwise (they run as the gateway\'s user).' })
  }, { additionalProperties: false, default: {} }),
  tracing: Type.Object({
    endpoint: Type.Optional(Type.String({ pattern: '^https?://', description: 'Base URL of an OTLP/HTTP receiver; spans go to its /v1/traces (OTEL_EXPORTER_OTLP_ENDPOINT). Unset, with tracesEndpoint unset too: no tracing.' })),
    tracesEndpoint: Type.Optional(Type.String({ pattern: '^https?://', description: 'Full URL spans are POSTed to, over endpoint (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT).' })),
    headers: Type.Record(Type.String(), Type.String(), { default: {}, description: 'Headers sent with every export, e.g. a vendor\'s API key (OTEL_EXPORTER_OTLP_HEADERS, `name=value,name=value`).' }),
    timeoutMs: PositiveMs('How long one export may take, retries included (OTEL_EXPORTER_OTLP_TIMEOUT).', 10_000),
    serviceName: Type.Optional(Type.String({ minLength: 1, description: 'service.name of the spans (OTEL_SERVICE_NAME); unset: resourceAttributes\' service.name, else tool-gateway.' })),
    sampler: Type.Enum(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'], {
      default: 'parentbased_always_on',
      description: 'Which traces are recorded (OTEL_TRACES_SAMPLER); parentbased_* follow the caller\'s sampled flag.'
    }),
    samplerArg: Type.Number({ minimum: 0, maximum: 1, default: 1, description: 'The ratio of the *traceidratio samplers (OTEL_TRACES_SAMPLER_ARG).' }),
    disabled: Type.Boolean({ default: false, description: 'No tracing even with an endpoint (OTEL_SDK_DISABLED).' }),
    exporter: Type.Enum(['otlp', 'none'], { default: 'otlp', description: 'Where spans go: OTLP/HTTP, or nowhere (OTEL_TRACES_EXPORTER; other exporters are not built in).' }),
    protocol: Type.Enum(['http/protobuf', 'http/json'], {
      default: 'http/protobuf',
      description: 'The OTLP transport asked for (OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL); both are sent as OTLP/HTTP JSON, which every OTLP/HTTP receiver takes; gRPC is not built in.'
    }),
    compression: Type.Enum(['none', 'gzip'], { default: 'none', description: 'Compression of each export (OTEL_EXPORTER_OTLP_COMPRESSION, OTEL_EXPORTER_OTLP_TRACES_COMPRESSION).' }),
    resourceAttributes: Type.Record(Type.String(), Type.String(), {
      default: {},
      description: 'Attributes of every span\'s resource, e.g. deployment.environment (OTEL_RESOURCE_ATTRIBUTES, `key=value,key=value`); serviceName wins over a service.name here.'
    }),
    batch: Type.Object({
      scheduleDelayMs: Type.Integer({ minimum: 0, default: 5_000, description: 'Longest a finished span waits before its batch is exported (OTEL_BSP_SCHEDULE_DELAY).' }),
      exportTimeoutMs: Type.Integer({ minimum: 1, default: 30_000, description: 'How long one batch export may take before it is given up (OTEL_BSP_EXPORT_TIMEOUT).' }),
      maxQueueSize: Type.Integer({ minimum: 1, default: 2_048, description: 'Finished spans held for export; past it new ones are dropped and counted in the log (OTEL_BSP_MAX_QUEUE_SIZE).' }),
      maxExportBatchSize: Type.Integer({ minimum: 1, default: 512, description: 'Spans per export, at most maxQueueSize (OTEL_BSP_MAX_EXPORT_BATCH_SIZE).' })
    }, { additionalProperties: false, default: {}, description: 'The batch span processor\'s settings, as the OpenTelemetry SDKs name them.' })
  }, { additionalProperties: false, default: {}, description: 'OpenTelemetry spans of every HTTP request and tool call, exported over OTLP/HTTP; off unless an endpoint is set.' })
}, { additionalProperties: false })

export type GatewayConfig = Static<typeof ConfigSchema>
export type ApiKeyConfig = Static<typeof ApiKeySchema>
export type OAuthConfig = Static<typeof OAuthSchema>
export type McpServerConfig = Static<typeof McpStdioServerSchema> | Static<typeof McpHttpServerSchema>
export type PluginConfig = Static<typeof PluginSchema>
