import { z } from 'zod';

/**
 * A stand-in for an object that is built on first use: every property read, write, `in`,
 * `instanceof` and key listing goes to the object, built then. Methods run on the object itself,
 * not on the stand-in (zod keys a schema's metadata by the instance, so `schema.meta()` must see
 * the one that was registered). The stand-in is one object for all its users, so identity holds
 * between them, but it is not the built object: code that compares the two, or keys a `WeakMap`
 * by one and looks up the other, would see two. The metadata of the built schema in zod's global
 * registry is given to the stand-in too, but its `id` (zod keeps an id for one schema), so
 * `z.toJSONSchema` of a stand-in has its title and description. zod cannot convert to JSON Schema
 * a stand-in for a `z.lazy` or a wrapper (optional, nullable, default, catch, pipe or transform,
 * readonly…: zod looks the wrapper up by the built schema), nor a schema holding one; a stand-in
 * cannot be frozen; `util.inspect` shows `{}`. The build wraps no `z.lazy`, no alias and none of
 * the tools' schemas, which the catalogue converts; the SDK converts none of its protocol schemas.
 *
 * Only the bundles use it (src/startup/bundle-options.mjs): the build wraps the MCP SDK's protocol
 * schemas in it, ~180 the SDK builds with zod when its modules load and ~140 per protocol era at
 * the era's first request, of which a CLI call uses a few dozen, and the constants its server and
 * client derive from them as they load; and the schemas the wallet's own modules (the CLI's and
 * the domain's, not the tools') build as they load (docs/PERFORMANCE.md).
 */
export function lazySchema<T extends z.core.$ZodType>(build: () => T): T {
  let built: T | undefined;
  const real = (): T => {
    if (built !== undefined) return built;
    const value = build();
    // A stand-in is an object: it cannot stand for a function or a primitive.
    if (typeof value !== 'object' || value === null) throw new TypeError('lazySchema: built something not an object');
    built = value;
    const meta = '_zod' in built ? z.globalRegistry.get(built) : undefined;
    if (meta !== undefined) {
      const { id: _id, ...shared } = meta;
      z.globalRegistry.add(standIn, shared);
    }
    return built;
  };
  const methods = new Map<PropertyKey, { of: unknown; bound: unknown }>();
  const standIn = new Proxy({} as T, {
    get(_, key) {
      const object = real();
      const value: unknown = Reflect.get(object, key, object);
      if (typeof value !== 'function') return value;
      const known = methods.get(key);
      if (known?.of === value) return known.bound;
      const bound = (value as (...args: unknown[]) => unknown).bind(object);
      methods.set(key, { of: value, bound });
      return bound;
    },
    set: (_, key, value) => Reflect.set(real(), key, value),
    has: (_, key) => Reflect.has(real(), key),
    deleteProperty: (_, key) => Reflect.deleteProperty(real(), key),
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(real(), key, descriptor),
    ownKeys: () => Reflect.ownKeys(real()),
    // The stand-in has no own properties of its own, so a proxy may only report configurable ones.
    getOwnPropertyDescriptor(_, key) {
      const descriptor = Reflect.getOwnPropertyDescriptor(real(), key);
      return descriptor === undefined ? undefined : { ...descriptor, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
  return standIn;
}
