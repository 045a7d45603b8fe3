# The gateway as a container: compiled JavaScript run by plain `node`, production dependencies only,
# as the unprivileged `node` user. `npm run container:check` builds and runs it with podman and buildah;
# `npm run smoke:prod` repeats its steps without an engine.
#
# Secure by default: the image listens on 0.0.0.0, and protected mode refuses to start an open
# gateway on a non-loopback address. Give it API keys, or say explicitly that it is open:
#   docker run -p 8080:8080 -v "$PWD/gateway.yaml:/config/gateway.yaml:ro" -e GATEWAY_CONFIG=/config/gateway.yaml tool-gateway
#   docker run -p 8080:8080 -e GATEWAY_ALLOW_OPEN=true tool-gateway     # anyone who reaches the port can run tools
# Mount a volume on /workspace for the files the file tools work on, and your own tool modules on a
# folder named by EXTRA_TOOLS_DIRS (README, "Adding your own tools"). Run with `--init` when the
# terminal tool is enabled, so that orphaned child processes are reaped.
# MCP over stdio for a desktop client (no port, no /healthz: README, "Over stdio"):
#   docker run -i --rm --init --no-healthcheck -v "$PWD:/workspace" tool-gateway node dist/src/server.js --stdio

ARG NODE_IMAGE=node:24-bookworm-slim

# Build: every dependency (TypeScript included), then tsc emits dist/src, dist/routes, dist/tools.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The devDependency that brings the Node 24 binary on machines without it (see its package.json).
COPY scripts/node-runtime ./scripts/node-runtime
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY routes ./routes
COPY tools ./tools
COPY plugins ./plugins
RUN npm run build

# Runtime: the compiled files and production dependencies, nothing else (no dev tools, no sources,
# no second Node binary: the image's own Node 24 runs the gateway).
FROM ${NODE_IMAGE} AS runtime
# MALLOC_ARENA_MAX=2: glibc gives each thread that allocates (libuv's file-system pool among them)
# an arena of its own and keeps what was freed there; two arenas hold the RSS after a load of large
# file reads some 20-60 MB lower (README, "Running in a container"). It is read when the process starts: an ENV.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    WORKSPACE_ROOT=/workspace \
    STATE_DIR=/state \
    MALLOC_ARENA_MAX=2
WORKDIR /app
# package.json also carries "type": "module", which the compiled .js files need.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
# The operator console's pages (GET /console): plain ES modules served as they are, no build step.
COPY console ./console
# bubblewrap confines the terminal tool's commands (README, "The terminal and its sandbox") where the
# container runtime lets an unprivileged user create namespaces (podman, Kubernetes with user
# namespaces); under Docker's default seccomp profile it cannot, and GET /tools says the terminal is
# unconfined (TERMINAL_SANDBOX=bwrap turns that into no terminal at all).
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap && rm -rf /var/lib/apt/lists/*
# The code stays owned by root (read-only for the process); only the workspace and the state folder
# (the pins of trusted tools: mount a volume on /state so that they outlive the container) are writable.
RUN mkdir -p /workspace /state && chown node:node /workspace /state
USER node
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1)).catch(() => process.exit(1))"]
CMD ["node", "dist/src/server.js"]
