import { z } from 'zod';
import { PROTOCOL_VERSION } from './wire.js';

// The daemon's side of its protocol (wire.ts): every request is checked with these schemas.

/** A command line to run as the CLI would, in the client's directory, environment and terminals. */
const RunRequest = z.strictObject({
  v: z.literal(PROTOCOL_VERSION),
  kind: z.literal('run'),
  /** The package version of the client: a daemon of another version leaves the call to it. */
  version: z.string(),
  /** The client's build (wire.ts, BUILD_ID): a daemon of another build ends, as of another version. */
  build: z.string().optional(),
  argv: z.array(z.string()).max(10_000),
  env: z.record(z.string(), z.string()),
  cwd: z.string().min(1),
  tty: z.strictObject({ stdin: z.boolean(), stdout: z.boolean(), stderr: z.boolean() }),
  columns: z.number().int().nonnegative().optional(),
});

const StatusRequest = z.strictObject({ v: z.literal(PROTOCOL_VERSION), kind: z.literal('status') });
const StopRequest = z.strictObject({ v: z.literal(PROTOCOL_VERSION), kind: z.literal('stop') });

/** What the caller types on its terminal while a run asks it a server's question (wire.ts, RunRelay). */
const InputMessage = z.strictObject({
  v: z.literal(PROTOCOL_VERSION),
  kind: z.literal('input'),
  text: z.string().max(1_000_000).optional(),
  end: z.literal(true).optional(),
});

export const DaemonRequest = z.discriminatedUnion('kind', [RunRequest, StatusRequest, StopRequest, InputMessage]);
export type DaemonRequest = z.infer<typeof DaemonRequest>;
export type RunRequest = z.infer<typeof RunRequest>;
export type InputMessage = z.infer<typeof InputMessage>;
