/**
 * The wallet's own files (issue 41): never opened through a link, and refused unless a regular
 * file of this user that others cannot write; the data directory made owner-only at start.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  openPrivateAppend,
  readPrivateText,
  readTextIfAny,
  tightenPrivateDir,
  UnsafeFileError,
  writeFileAtomic,
} from '../../src/shared/private-files.js';
import { tempHome } from '../helpers/io.js';

const homes: string[] = [];
after(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

/** A data directory, and a file outside it that a planted link points to. */
function layout(): { data: string; outside: string } {
  const home = tempHome();
  homes.push(home);
  const data = join(home, 'data');
  mkdirSync(data, { mode: 0o700 });
  const outside = join(home, 'outside.txt');
  writeFileSync(outside, 'not the wallet’s\n', { mode: 0o644 });
  return { data, outside };
}

const refused = (problem: RegExp) => (error: unknown) =>
  error instanceof UnsafeFileError && error.code === 'KEYSTORE_DAMAGED' && problem.test(error.message);

describe('a file of the data directory', () => {
  it('is not read, appended to or replaced through a link; the file it points to is untouched', () => {
    const { data, outside } = layout();
    const path = join(data, 'audit.log');
    symlinkSync(outside, path);
    const link = /audit\.log is a symbolic link; refused/;
    assert.throws(() => readPrivateText(path), refused(link));
    assert.throws(() => openPrivateAppend(path), refused(link));
    assert.throws(() => writeFileAtomic(path, 'new\n'), refused(link));
    assert.equal(readTextIfAny(path), undefined);
    assert.equal(readFileSync(outside, 'utf8'), 'not the wallet’s\n');
    assert.equal(statSync(outside).mode & 0o777, 0o644, 'the link’s target keeps its mode');
    assert.ok(lstatSync(path).isSymbolicLink(), 'the link is left for the owner to look at');
  });

  it('is refused when others can write it, and names what to do', () => {
    const { data } = layout();
    const path = join(data, 'config.json');
    writeFileSync(path, '{}\n');
    chmodSync(path, 0o666);
    assert.throws(
      () => readPrivateText(path),
      (error: unknown) => {
        assert.ok(error instanceof UnsafeFileError);
        assert.match(error.message, /config\.json is writable by others \(mode 0666\)/);
        assert.match(error.hint, /chmod 600 .*config\.json/);
        return true;
      },
    );
    assert.throws(() => writeFileAtomic(path, '{"x":1}\n'), refused(/writable by others/));
    assert.equal(readFileSync(path, 'utf8'), '{}\n');
    chmodSync(path, 0o644);
    assert.equal(readPrivateText(path), '{}\n', 'readable by others is no refusal');
  });

  it('is refused when it is not a regular file (a folder, a FIFO: never waited on)', () => {
    const { data } = layout();
    const folder = join(data, 'approvals.json');
    mkdirSync(folder);
    assert.throws(() => readPrivateText(folder), refused(/is not a regular file/));
    const fifo = join(data, 'spend-ledger.json');
    try {
      execFileSync('mkfifo', [fifo]);
    } catch {
      return; // no mkfifo here: the folder stood for non-regular files
    }
    assert.throws(() => readPrivateText(fifo), refused(/is not a regular file/));
  });

  it("is refused when it is another user's", (context) => {
    if (process.getuid?.() !== 0) {
      context.skip('needs root to give a file to another user');
      return;
    }
    const { data } = layout();
    const path = join(data, 'config.json');
    writeFileSync(path, '{}\n', { mode: 0o600 });
    chownSync(path, 12345, 12345);
    assert.throws(() => readPrivateText(path), refused(/belongs to another user \(uid 12345\)/));
    assert.throws(() => writeFileAtomic(path, '{}\n'), refused(/another user/));
  });

  it('is read and written as before when it is the wallet’s own; a missing one is ENOENT', () => {
    const { data } = layout();
    const path = join(data, 'config.json');
    assert.throws(() => readPrivateText(path), /ENOENT/);
    writeFileAtomic(path, '{"a":1}\n');
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(readPrivateText(path), '{"a":1}\n');
    const log = join(data, 'audit.log');
    closeSync(openPrivateAppend(log));
    assert.equal(statSync(log).mode & 0o777, 0o600);
  });
});

describe('the data directory at start', () => {
  it('is made owner-only when others could write it, with a warning', () => {
    const { data } = layout();
    chmodSync(data, 0o777);
    const warning = tightenPrivateDir(data);
    assert.match(warning ?? '', /was open to others \(mode 0777\); made it owner-only \(0700\)/);
    assert.equal(statSync(data).mode & 0o777, 0o700);
    assert.equal(tightenPrivateDir(data), undefined, 'already owner-only: nothing to say');
  });

  it('is left to be created at the first write when missing, and refused when not a folder', () => {
    const { data } = layout();
    assert.equal(tightenPrivateDir(join(data, 'none')), undefined);
    writeFileSync(join(data, 'file'), '');
    assert.throws(() => tightenPrivateDir(join(data, 'file')), refused(/is not a directory/));
  });
});
