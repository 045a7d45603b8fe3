// The test identity provider's storage (clients registered, grants, codes, sessions, opaque tokens).
// oidc-provider's own memory adapter belongs to one Provider instance; rotating the signing keys
// builds a new instance, and what was issued before must survive that, so the harness owns the store.
import type { Adapter, AdapterPayload } from 'oidc-provider'

interface Entry { payload: AdapterPayload, expiresAt: number }

export class MemoryStore {
  readonly #entries = new Map<string, Entry>()
  // grantId → keys of what was issued under it, so revoking a grant revokes its tokens.
  readonly #byGrant = new Map<string, Set<string>>()
  // Secondary indexes oidc-provider looks up by: session uid and device user code.
  readonly #byIndex = new Map<string, string>()

  adapterFor (model: string): Adapter {
    const key = (id: string): string => `${model}:${id}`
    return {
      upsert: async (id, payload, expiresIn) => { this.#upsert(model, key(id), payload, expiresIn) },
      find: async (id) => this.#get(key(id)),
      findByUid: async (uid) => this.#findIndexed(`uid:${uid}`),
      findByUserCode: async (userCode) => this.#findIndexed(`userCode:${userCode}`),
      consume: async (id) => {
        const payload = this.#get(key(id))
        if (payload !== undefined) payload.consumed = Math.floor(Date.now() / 1000)
      },
      destroy: async (id) => { this.#entries.delete(key(id)) },
      revokeByGrantId: async (grantId) => {
        for (const member of this.#byGrant.get(grantId) ?? []) this.#entries.delete(member)
        this.#byGrant.delete(grantId)
      }
    }
  }

  #upsert (model: string, key: string, payload: AdapterPayload, expiresIn: number | undefined): void {
    // Expiry is checked when read: no timer keeps a test's event loop alive.
    const expiresAt = typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : Infinity
    this.#entries.set(key, { payload, expiresAt })
    if (typeof payload.grantId === 'string') {
      const members = this.#byGrant.get(payload.grantId) ?? new Set<string>()
      members.add(key)
      this.#byGrant.set(payload.grantId, members)
    }
    if (model === 'Session' && typeof payload.uid === 'string') this.#byIndex.set(`uid:${payload.uid}`, key)
    if (typeof payload.userCode === 'string') this.#byIndex.set(`userCode:${payload.userCode}`, key)
  }

  #get (key: string): AdapterPayload | undefined {
    const entry = this.#entries.get(key)
    if (entry === undefined) return undefined
    if (entry.expiresAt <= Date.now()) {
      this.#entries.delete(key)
      return undefined
    }
    return entry.payload
  }

  #findIndexed (index: string): AdapterPayload | undefined {
    const key = this.#byIndex.get(index)
    return key === undefined ? undefined : this.#get(key)
  }
}
