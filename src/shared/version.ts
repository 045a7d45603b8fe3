// The gateway's name and version as it announces itself: to MCP clients (serverInfo), to MCP
// servers it connects to (clientInfo) and in the OpenAPI document. A constant rather than a read of
// package.json, which the compiled build (dist/) does not sit beside; a test keeps the two equal.
export const GATEWAY_IDENTITY = Object.freeze({ name: 'tool-gateway', version: '0.1.0' })
