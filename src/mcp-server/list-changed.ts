// notifications/tools/list_changed when the registry generation moves. Changes come in bursts (an
// MCP upstream's list refreshed, a plugin's tools registered one by one): those arriving within a
// short quiet time make one notification, not one per tool.
import type { ToolRegistry } from '../registry/registry.ts'

/** Registry changes arriving within this time make one tools/list_changed. */
const LIST_CHANGED_QUIET_MS = 100

/** Calls `notify` once per burst of registry changes until `stop()`. */
export function onToolsChanged (registry: ToolRegistry, notify: () => void, quietMs = LIST_CHANGED_QUIET_MS): { stop: () => void } {
  let timer: NodeJS.Timeout | undefined
  const onChange = (): void => {
    if (timer !== undefined) return
    timer = setTimeout(() => {
      timer = undefined
      notify()
    }, quietMs)
    // A pending notification alone must not keep a stopping process alive.
    timer.unref()
  }
  registry.on('change', onChange)
  return {
    stop () {
      registry.off('change', onChange)
      clearTimeout(timer)
    }
  }
}
