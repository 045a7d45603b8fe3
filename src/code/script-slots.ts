// Scripts each caller has running or waiting for a worker (code.maxScriptsPerCaller): past it a
// caller's next script is refused at once instead of queueing, so that one caller's flood holds at
// most that many places in the workers' queue ahead of the others.
export class ScriptSlots {
  readonly #taken = new Map<string, number>()

  /** Takes a slot for `owner`; false when it holds `max` already. */
  take (owner: string, max: number): boolean {
    const held = this.#taken.get(owner) ?? 0
    if (held >= max) return false
    this.#taken.set(owner, held + 1)
    return true
  }

  release (owner: string): void {
    const held = this.#taken.get(owner) ?? 0
    if (held <= 1) this.#taken.delete(owner)
    else this.#taken.set(owner, held - 1)
  }
}
