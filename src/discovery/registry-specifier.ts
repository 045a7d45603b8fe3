// Lets tool modules outside the project import the registry as 'tool-gateway/registry'. Their
// relative path to it differs between the sources (`npm start`) and the compiled files (the
// container), and a path into another checkout would load a second copy that discovery never sees;
// a resolve hook maps that one name to the registry module this process runs, the instance the
// built-in tools share. The hook runs in-thread and serves import and require alike.
import { registerHooks } from 'node:module'
import { REGISTRY_MODULE_URL, REGISTRY_SPECIFIER } from '../registry/index.ts'

let installed = false

/** Installs the hook once per process; later calls do nothing. */
export function installRegistrySpecifier (): void {
  if (installed) return
  installed = true
  registerHooks({
    resolve (specifier, context, nextResolve) {
      if (specifier === REGISTRY_SPECIFIER) return { url: REGISTRY_MODULE_URL, shortCircuit: true }
      return nextResolve(specifier, context)
    }
  })
}
