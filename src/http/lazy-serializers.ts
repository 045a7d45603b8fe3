// Response serializers compiled on first use instead of at start. Fastify builds one
// fast-json-stringify function per route and status code as the app gets ready: 52 for the built-in
// routes (HEAD twins and error statuses included), about a tenth of the time to ready, although
// most of them serve no response in a given run. Each is built by Fastify's own default compiler,
// the moment its route first answers with that status, and kept: the same function, built later.
import { createRequire } from 'node:module'

type Serialize = (...args: unknown[]) => string
type RouteSerializerCompiler = (routeSchema: unknown) => Serialize
/** The shape of Fastify's `schemaController.compilersFactory.buildSerializer`. */
export type SerializerFactory = (externalSchemas: unknown, serializerOptions: unknown) => RouteSerializerCompiler

// Resolved from Fastify's own folder: the very copy (and version) Fastify would use by default.
const fastifyRequire = createRequire(import.meta.resolve('fastify'))
const { SerializerSelector } = fastifyRequire('@fastify/fast-json-stringify-compiler') as { SerializerSelector: () => SerializerFactory }

/** Fastify's default serializer factory, with each route's function built on its first call. */
export function lazySerializerFactory (): SerializerFactory {
  const buildDefault = SerializerSelector()
  return (externalSchemas, serializerOptions) => {
    const compile = buildDefault(externalSchemas, serializerOptions)
    return (routeSchema) => {
      let serialize: Serialize | undefined
      return (...args) => {
        serialize ??= compile(routeSchema)
        return serialize(...args)
      }
    }
  }
}
