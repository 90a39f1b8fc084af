import { endpointHint } from '../config/endpoints.js';
import type { Chain } from '../config/networks.js';
import { WalletError } from '../errors.js';

/**
 * A `BACKEND_UNAVAILABLE` error with the network's way to set another endpoint added to its hint
 * (config key, environment variable, `endpoint` argument); any other error as it was.
 */
export function withEndpointHint(error: unknown, chain: Chain, network: string): unknown {
  if (!(error instanceof WalletError) || error.code !== 'BACKEND_UNAVAILABLE') return error;
  const howToSet = endpointHint(chain, network);
  if (error.hint?.includes(howToSet)) return error;
  return new WalletError(error.code, error.message, {
    hint: error.hint === undefined ? howToSet : `${error.hint} ${howToSet}`,
    cause: error.cause,
    ...(error.details === undefined ? {} : { details: error.details }),
  });
}

/**
 * `backend` with every method's failure passed through {@link withEndpointHint}: the one place
 * a chain backend's `BACKEND_UNAVAILABLE` learns which network it served, so every such hint says
 * how to point that network elsewhere.
 */
export function hintingBackend<T extends object>(backend: T, chain: Chain, network: string): T {
  return new Proxy(backend, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]): unknown => {
        try {
          const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
          return result instanceof Promise
            ? result.catch((error: unknown) => {
                throw withEndpointHint(error, chain, network);
              })
            : result;
        } catch (error) {
          throw withEndpointHint(error, chain, network);
        }
      };
    },
  });
}
