// The daemon's protocol: one JSON object a line over its Unix socket, a request from the client
// and one answer from the daemon. The thin client (client.ts) writes requests and reads answers
// with no more than this file (it runs before the CLI's bundle, zod included, would load); the
// daemon checks every request with the schemas of protocol.ts.

/** The protocol's version: a client and a daemon of different builds fall back to a direct call. */
export const PROTOCOL_VERSION = 1;

/** One kept-alive server the daemon holds a session of. */
export type WarmServerStatus = {
  name: string;
  transport: 'stdio' | 'http';
  calls: number;
  since: string;
  lastUsed: string;
  log: string;
};

export type DaemonStatus = {
  pid: number;
  version: string;
  startedAt: string;
  idleMinutes: number;
  socket: string;
  log: string;
  servers: WarmServerStatus[];
};

/**
 * The daemon's answers: a run's output and exit code (`done`); `fallback` when the call is not
 * the daemon's to make (it needs the terminal, a verb of the CLI's own, another version), for
 * the client to make directly; `status`; `stopping`; `refused` for a request it cannot read.
 */
export type DaemonAnswer =
  | { kind: 'done'; stdout: string; stderr: string; exitCode: number }
  | { kind: 'fallback'; reason: string }
  | { kind: 'status'; status: DaemonStatus }
  | { kind: 'stopping' }
  | { kind: 'refused'; message: string };
