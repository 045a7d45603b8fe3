// #/servers: the MCP servers the gateway is configured with (GET /tools, mcpServers): state,
// negotiated revision, tools served and left out with the reasons, the last error.
import { getJson } from '../api.js'
import { formatTime, h, table } from '../dom.js'
import { startView } from './common.js'

function list (items, text) {
  if (!items || items.length === 0) return 'none'
  return h('ul', { class: 'plain' }, items.map((item) => h('li', null, text(item))))
}

function revision (server) {
  if (!server.protocolVersion) return 'not connected'
  return server.protocolEra ? `${server.protocolVersion} (${server.protocolEra})` : server.protocolVersion
}

function row (server) {
  const reconnects = server.reconnects ?? server.reconnectAttempts
  return [
    h('strong', null, server.server),
    server.transport ?? '',
    h('span', { class: server.state === 'connected' ? 'ok' : 'bad' }, server.state, server.since ? h('br') : '', server.since ? h('span', { class: 'muted' }, `since ${formatTime(server.since)}`) : ''),
    revision(server),
    String(server.tools ?? 0),
    list(server.toolsLeftOut, (item) => `${item.tool}: ${item.reason}`),
    list(server.schemaWarnings, (item) => `${item.tool}: ${item.warning}`),
    server.lastError ?? 'none',
    reconnects === undefined ? '—' : String(reconnects)
  ]
}

export function render (ctx) {
  const view = startView(ctx, 'MCP servers')
  getJson('../tools', { signal: ctx.signal }).then((report) => {
    const servers = report.mcpServers ?? []
    if (servers.length === 0) {
      view.body.replaceChildren(h('p', null, 'No MCP server is configured (or none is visible to your key).'))
    } else {
      view.body.replaceChildren(table('MCP servers and their state',
        ['Name', 'Transport', 'State', 'Negotiated revision', 'Tools', 'Tools left out', 'Schema warnings', 'Last error', 'Reconnects'],
        servers.map(row)))
    }
    view.done()
  }).catch(view.fail)
}
