/**
 * The largest request body `wallet serve --http` reads, at every layer (the Node adapter, both
 * eras' handlers): a PSBT of a big transaction fits; the SDK's default of 4 MiB is more than any
 * call needs, and it is read before the token is checked.
 */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;
