// The environment a command sees: only the variables the operator allowlisted, so API keys and
// other secrets in the gateway's own environment never reach a command the model wrote.

/**
 * Copies the allowlisted variables from `source`. HOME is always the workspace: programs then do
 * not pick up the gateway user's dotfiles and stored credentials (~/.npmrc, ~/.aws, ~/.gitconfig,
 * ~/.netrc) on their own, and caches they write land in the workspace.
 */
export function commandEnvironment (allowlist: readonly string[], source: NodeJS.ProcessEnv, home: string): Record<string, string> {
  const env: Record<string, string> = {}
  for (const name of allowlist) {
    // Only real variable names: this also keeps `__proto__` and friends off the object.
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || name === '__proto__') continue
    const value = source[name]
    if (typeof value === 'string' && Object.hasOwn(source, name)) env[name] = value
  }
  env.HOME = home
  return env
}
