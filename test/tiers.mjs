// Which test files are system tests; every other test/**/*.test.ts is in the fast tier. Read by
// scripts/run-tests.mjs: `npm test` runs lint, types and the fast tier, `npm run test:system` the
// system tier, and CI (.ci/run) both.
//
// Fast: what runs in the test's own process: units, app.inject, real servers started in-process on
// loopback, worker threads; also short-lived children a unit spawns as its own work or as a probe
// (an unconfined terminal command, an MCP stdio server as an upstream, `node -e` showing that a timer
// holds no process open).
// System: the gateway run as a process (src/server.ts, --stdio, npm start and dev, the compiled build,
// replicas), programs from outside node_modules (redis-server, bubblewrap, kubectl: installed when
// missing), npm installs, third-party clients run as processes, and stdio MCP servers whose process
// lifecycle (killed, hung, restarted) is what is tested.
// A path or a glob, each matching at least one file (an entry that matches none fails the run).
export const SYSTEM_TESTS = [
  // The gateway as a process.
  'test/server.test.ts', // src/server.ts as a child: exit codes, signals, its log
  'test/replicas.test.ts', // replicas as processes behind a balancer, sharing a redis-server
  'test/reload/signal-and-watch.test.ts', // SIGHUP and the watched config file, in a child gateway
  'test/mcp-client/redos.test.ts', // a child gateway, so that a blocked event loop can be seen from outside
  'test/mcp-server/stdio.test.ts', // the gateway launched as an MCP stdio server (--stdio)
  'test/mcp-server/stdio-modern.test.ts', // the same, in the 2026-07-28 revision
  'test/discovery/outside-tools.test.ts', // `npm run dev` and `npm start` (the compiled build) as children
  'test/lazy-loading.test.ts', // a fresh node process builds the gateway and lists the packages it loaded
  'test/runtime/**', // the compiled build, `npm start`, `npm install` of the Node runtime package
  'test/kubernetes.test.ts', // kubectl kustomize, the pod run under bubblewrap, redis-server
  'test/calls/replicas.test.ts', // async calls across two replicas sharing a redis-server, one killed mid-call
  'test/calls/idle-proxy.test.ts', // a two-minute call through a 60 s-idle proxy, against the gateway as a process
  // Programs from outside node_modules.
  'test/shared-state/redis.test.ts', // redis-server
  'test/calls/redis-calls.test.ts', // redis-server: two books of detached calls sharing it
  'test/trust/redis-pins.test.ts', // redis-server: two replicas sharing their pins
  'test/approvals/redis.test.ts', // redis-server: two replicas sharing pending approvals
  'test/tools/terminal/sandbox.test.ts', // bubblewrap
  'test/tools/terminal/command-user.test.ts', // bubblewrap, commands as another user
  'test/tools/terminal/quota.test.ts', // bubblewrap
  'test/tools/terminal/root-sandbox.test.ts', // bubblewrap, tried as a hostile command
  'test/tools/terminal/http.test.ts', // bubblewrap (GET /tools with the sandbox)
  // Third-party clients as processes.
  'test/auth/mcp-remote.test.ts', // mcp-remote, as Claude Desktop runs it
  'test/mcp-server/conformance.test.ts', // the official MCP conformance suite
  // A real browser: Debian's chromium (installed when missing) driven by playwright-core.
  'test/console/**', // the operator console (issue 32): its views, keyboard, axe-core, CSP
  // Stdio MCP servers killed, hung and restarted.
  'test/mcp-client/connection.test.ts'
]

/** Per file, by tier: past it the file is stopped and the run fails naming it (TEST_FILE_TIMEOUT_MS overrides). */
export const FILE_TIME_LIMIT_MS = Object.freeze({
  // About 2.5 times the slowest fast file (test/mcp-server/session-limits.test.ts, 95 s).
  fast: 240_000,
  // A first run may also install bubblewrap or redis-server, or download kubectl (up to 300 s).
  system: 600_000
})
