import { join } from 'node:path';

// Where the kept-alive servers' daemon keeps its socket and logs: a folder of its own in the
// owner-only data directory (0700, as every folder the wallet makes there). Kept apart from the
// daemon's code so the thin client (client.ts, run before the CLI's bundle loads) needs no more.

/** `<dataDir>/daemon`: the socket, the daemon's own log and one log a server. */
export function daemonDir(dataDir: string): string {
  return join(dataDir, 'daemon');
}

/** The daemon's Unix socket (0600, in the 0700 folder above). */
export function socketPath(dataDir: string): string {
  return join(daemonDir(dataDir), 'daemon.sock');
}

/** The daemon's own stdout and stderr (it is started detached). */
export function daemonLogPath(dataDir: string): string {
  return join(daemonDir(dataDir), 'daemon.log');
}

/** A kept-alive server's stderr, by its saved name (a name of servers.json: safe as a file name). */
export function serverLogPath(dataDir: string, name: string): string {
  return join(daemonDir(dataDir), `${name}.log`);
}

/** The slots ready for a call (slots.ts): a folder each, two FIFOs in it. */
export function slotsDir(daemonFolder: string): string {
  return join(daemonFolder, 'slots');
}

/** Where the daemon makes slots, before they are ready. */
export function slotsNewDir(daemonFolder: string): string {
  return join(daemonFolder, 'slots-new');
}

/** Where a client moves the slot it takes (one client a slot: the rename is atomic). */
export function slotsTakenDir(daemonFolder: string): string {
  return join(daemonFolder, 'slots-taken');
}
