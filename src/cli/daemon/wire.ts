// The daemon's protocol: one JSON object a line over its Unix socket, a request from the client
// and one answer from the daemon; during a run, the daemon may first relay a server's question to
// the client's terminal (RunRelay below), and the client sends what is typed there (`input`). The thin client (client.ts) writes requests and reads answers
// with no more than this file (it runs before the CLI's bundle, zod included, would load); the
// daemon checks every request with the schemas of protocol.ts.

/** The protocol's version: a client and a daemon of different builds fall back to a direct call. */
export const PROTOCOL_VERSION = 1;

/**
 * In the bundles, the build they are of (`buildId` in src/startup/bundle-options.mjs: a digest of
 * what they were built from); 'unbundled' for the compiled modules run as they are. A daemon of
 * another build than its caller's ends (a wallet rebuilt or upgraded in place, its version
 * unchanged), as one of another version does: it would run old code.
 */
declare const WALLET_BUILD_ID: string | undefined;
export const BUILD_ID: string = typeof WALLET_BUILD_ID === 'string' ? WALLET_BUILD_ID : 'unbundled';

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
  /** The build it runs ({@link BUILD_ID}). */
  build: string;
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
  | {
      kind: 'fallback';
      reason: string;
      /** The daemon is ending, being of another version or build: the client starts one of its own. */
      restart?: boolean;
    }
  | { kind: 'status'; status: DaemonStatus }
  | { kind: 'stopping' }
  | { kind: 'refused'; message: string };

/**
 * What the daemon sends during a run before its answer, when the server asks a question
 * (elicitation) of a caller on a terminal: text to print now (`write`: the question, its
 * prompts, and what the run printed before them), and `read`, asking for the caller's stdin,
 * which the client then sends as it comes (`input` requests, `end` once it ends).
 */
export type RunRelay = { kind: 'write'; fd: 1 | 2; text: string } | { kind: 'read' };
