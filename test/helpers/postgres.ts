/**
 * A throwaway PostgreSQL cluster for the state-store tests: Debian's `postgresql` (initdb and
 * pg_ctl), in a temporary folder, on a free loopback port, with a password (scram-sha-256) that
 * the wallet gets only through PGPASSWORD. PostgreSQL refuses to run as root: as root the cluster
 * runs as `nobody` (setpriv), its folder given to that user; as anyone else, as that user.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withFreshPorts } from './ports.js';

const BIN_DIRS = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'];

/** The folder holding initdb and pg_ctl, or undefined where PostgreSQL is not installed. */
export function findPostgres(): string | undefined {
  return BIN_DIRS.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
}

export type PgCluster = {
  /** postgres://wallet@127.0.0.1:<port>/wallet, no password in it. */
  url: string;
  /** The superuser's password, for PGPASSWORD. */
  password: string;
  port: number;
  /** Runs SQL with psql as the superuser (or `as` another role); returns its unaligned output. */
  sql(text: string, as?: { user: string; password: string }): string;
  stop(): void;
  start(): void;
  remove(): void;
};

/** uid/gid of `nobody`, when running as root (PostgreSQL will not run as root). */
function unprivileged(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string): number => Number(spawnSync('id', [flag, 'nobody'], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
}

export function startPostgres(bin: string): Promise<PgCluster> {
  return withFreshPorts(1, ([port = 0]) => Promise.resolve(startOn(bin, port)));
}

function startOn(bin: string, port: number): PgCluster {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-pg-'));
  const data = join(dir, 'data');
  const password = `pw-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  const pwfile = join(dir, 'pwfile');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  const user = unprivileged();
  if (user) {
    chownSync(dir, user.uid, user.gid);
    chownSync(pwfile, user.uid, user.gid);
  }
  chmodSync(dir, 0o700);
  const run = (command: string, args: string[], input?: string, pass = password) => {
    const wrapped = user
      ? ['setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', command, ...args]]
      : [command, args];
    const result = spawnSync(wrapped[0] as string, wrapped[1] as string[], {
      encoding: 'utf8',
      cwd: dir,
      input,
      env: { PATH: process.env['PATH'] ?? '', LANG: 'C', PGPASSWORD: pass },
      timeout: 60_000,
    });
    if (result.status !== 0) {
      throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.stderr}${result.stdout}`);
    }
    return result.stdout;
  };
  run(join(bin, 'initdb'), ['-D', data, '-U', 'wallet', `--pwfile=${pwfile}`, '--auth=scram-sha-256', '-E', 'UTF8']);
  const start = (): void => {
    run(join(bin, 'pg_ctl'), [
      '-D',
      data,
      '-l',
      join(dir, 'log'),
      '-w',
      '-o',
      `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c max_connections=200 -c fsync=off`,
      'start',
    ]);
  };
  start();
  run(join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'wallet', 'wallet']);
  return {
    url: `postgres://wallet@127.0.0.1:${port}/wallet`,
    password,
    port,
    sql: (text, as) =>
      run(
        join(bin, 'psql'),
        [
          '-h',
          '127.0.0.1',
          '-p',
          String(port),
          '-U',
          as?.user ?? 'wallet',
          '-d',
          'wallet',
          '-At',
          '-v',
          'ON_ERROR_STOP=1',
          '-c',
          text,
        ],
        undefined,
        as?.password ?? password,
      ),
    stop: () => {
      run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
    },
    start,
    remove: () => {
      // As the cluster's own user (setpriv as root: pg_ctl refuses root, and the postmaster would
      // outlive the test); stopped already is fine.
      try {
        run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Not running.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
