// Reload on a change of the config file (reload.watchConfig, off by default). The folder is
// watched, not the file: editors and config-map mounts replace a file by renaming another over it,
// which ends a watch on the file itself. Changes come in bursts (a write, a rename, a chmod), so
// the reload runs once the file has been quiet for `debounceMs`.
import { watch, type FSWatcher } from 'node:fs'
import { basename, dirname } from 'node:path'
import type { Logger } from 'pino'

export interface ConfigWatchOptions {
  /** The config file (absolute). */
  file: string
  debounceMs: number
  onChange: () => void
  logger: Pick<Logger, 'warn' | 'info'>
}

/** Starts watching; the function returned stops. A folder that cannot be watched is logged, not fatal. */
export function watchConfigFile ({ file, debounceMs, onChange, logger }: ConfigWatchOptions): () => void {
  const name = basename(file)
  let timer: NodeJS.Timeout | undefined
  let watcher: FSWatcher
  try {
    watcher = watch(dirname(file), { persistent: false }, (_event, changed) => {
      // Some platforms do not say which file changed: take it as ours.
      if (changed !== null && changed !== name) return
      clearTimeout(timer)
      timer = setTimeout(onChange, debounceMs)
    })
  } catch (err) {
    logger.warn({ err, file }, 'config file not watched: its folder cannot be watched; reload with SIGHUP')
    return () => {}
  }
  watcher.on('error', (err) => logger.warn({ err, file }, 'config file watch failed; reload with SIGHUP'))
  logger.info({ file, debounceMs }, 'watching the config file: a change reloads the configuration')
  return () => {
    clearTimeout(timer)
    watcher.close()
  }
}
