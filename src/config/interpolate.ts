// `${VAR}` and `${VAR:-default}` in configuration file strings, read from the environment, so
// secrets stay out of the file. A variable that is unset and has no default is an error naming it.

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g

export function interpolate (value: unknown, env: NodeJS.ProcessEnv, path = ''): { value: unknown, problems: string[] } {
  const problems: string[] = []
  const walk = (node: unknown, at: string): unknown => {
    if (typeof node === 'string') {
      return node.replace(REFERENCE, (whole, name: string, fallback: string | undefined) => {
        const found = env[name]
        if (found !== undefined && found !== '') return found
        if (fallback !== undefined) return fallback
        problems.push(`${at || '(top level)'}: environment variable ${name} is not set (referenced as ${whole})`)
        return whole
      })
    }
    if (Array.isArray(node)) return node.map((item, i) => walk(item, `${at}.${i}`.replace(/^\./, '')))
    if (typeof node === 'object' && node !== null) {
      const out: Record<string, unknown> = {}
      for (const [key, item] of Object.entries(node)) out[key] = walk(item, `${at}.${key}`.replace(/^\./, ''))
      return out
    }
    return node
  }
  return { value: walk(value, path), problems }
}
