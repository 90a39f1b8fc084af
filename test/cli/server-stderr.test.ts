import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EVERYTHING_SERVER } from '../helpers/paths.js';
import { wallet } from '../helpers/io.js';

const everything = `"${process.execPath}" "${EVERYTHING_SERVER}" stdio`;

describe("wallet --server: the spawned server's stderr", () => {
  it('is kept out of the output, and shown under --debug', async () => {
    const quiet = await wallet(['--server', everything, 'echo', '--message', 'hi']);
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.equal(quiet.stderr, '');
    const debug = await wallet(['--server', everything, 'echo', '--message', 'hi', '--debug']);
    assert.equal(debug.code, 0, debug.stderr);
    assert.match(debug.stderr, /debug: server: .*Starting/);
  });

  it('of a server that dies is told with the failure (its last lines), exit 3', async () => {
    const dying = `"${process.execPath}" -e "console.error('noise'); console.error('fatal: no config file at /etc/x'); process.exit(1)"`;
    const { code, stderr } = await wallet(['--server', dying, 'tools', '--refresh']);
    assert.equal(code, 3, stderr);
    assert.match(stderr, /the server's stderr: noise \| fatal: no config file at \/etc\/x/);
  });
});
