import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { questionAnswerer } from '../../src/cli/questions.js';
import { EVERYTHING_SERVER } from '../helpers/paths.js';
import { fakeIo, wallet } from '../helpers/io.js';

const noActivity = { start: () => undefined, progress: () => undefined, pause: () => undefined, stop: () => undefined };

// @modelcontextprotocol/server-everything offers its elicitation tools only to a client that
// declares elicitation, and asks for strings (with formats), numbers, integers, booleans, enums,
// single and multiple choices, with and without defaults.
const everything = `"${process.execPath}" "${EVERYTHING_SERVER}" stdio`;

describe("wallet --server: answering a server's questions (elicitation)", () => {
  it('on a terminal, asks each field on stderr and sends the typed answers and the defaults', async () => {
    // Answer it? yes; name; check; then Enter for every default but the integer (7) and a multi-select.
    const typed = ['y', 'Ada', 'y', '', '', '', '', '7', '', '', 'Piano, Drums', '', '', '', ''].join('\n') + '\n';
    const { code, stdout, stderr } = await wallet(
      ['--server', everything, 'trigger-elicitation-request', '--json', '--no-color'],
      { tty: true, stdin: typed },
    );
    assert.equal(code, 0, stderr);
    assert.match(stderr, /The server asks: /);
    assert.match(stderr, /\(integer\), optional \[42\]: /);
    assert.doesNotMatch(stdout, /The server asks/, 'prompts stay off stdout');
    const text = JSON.stringify(JSON.parse(stdout));
    assert.match(text, /User provided the requested information/);
    assert.match(text, /Ada/);
    assert.match(text, /\\"integer\\": ?7/);
    assert.match(text, /Piano/);
    assert.match(text, /It was a dark and stormy night/, 'a default taken with Enter is sent');
  });

  it('on a terminal, n declines, and the server hears a decline', async () => {
    const { code, stdout, stderr } = await wallet(['--server', everything, 'trigger-elicitation-request', '--json'], {
      tty: true,
      stdin: 'n\n',
    });
    assert.equal(code, 0, stderr);
    assert.match(stderr, /Declined: you said no\./);
    assert.match(stdout, /User declined/);
  });

  it('with --accept-defaults and no terminal, a required field without a default is declined, saying why', async () => {
    const { code, stdout, stderr } = await wallet([
      '--server',
      everything,
      'trigger-elicitation-request',
      '--accept-defaults',
      '--json',
    ]);
    assert.equal(code, 0, stderr);
    assert.match(stderr, /Declined: 'name' has no default, and there is no terminal to ask on\./);
    assert.match(stdout, /User declined/);
  });

  it('without a terminal or --accept-defaults, declares no elicitation: the server offers no such tool', async () => {
    const { code, stdout } = await wallet(['--server', everything, 'tools', '--refresh', '--json']);
    assert.equal(code, 0);
    const tools = (JSON.parse(stdout) as { tools: { tool: string }[] }).tools.map((row) => row.tool);
    assert.ok(tools.includes('echo'));
    assert.ok(!tools.includes('trigger-elicitation-request'), tools.join(', '));
  });

  it('on a terminal, a URL question prints the URL and waits for Enter', async () => {
    const { code, stdout, stderr } = await wallet(
      ['--server', everything, 'trigger-url-elicitation', '--arg-url', 'https://example.com/verify', '--json'],
      { tty: true, stdin: '\n' },
    );
    assert.equal(code, 0, stderr);
    assert.match(stderr, /Open this URL in a browser: https:\/\/example\.com\/verify/);
    assert.doesNotMatch(stdout, /Open this URL/);
    assert.match(stdout, /accept/);
  });

  it('never takes a secret through a form: a password field or a secret-looking name is declined', async () => {
    for (const property of [
      { pin_code: { type: 'string', format: 'password' } },
      { value: { type: 'string', writeOnly: true } },
      { seed_phrase: { type: 'string' } },
    ]) {
      const io = fakeIo({ tty: true, stdin: 'y\nhunter2\n' });
      const answerer = questionAnswerer(io, noActivity, false);
      assert.ok(answerer);
      const answer = await answerer.answer({
        mode: 'form',
        message: 'Unlock',
        requestedSchema: { type: 'object', properties: property },
      });
      assert.deepEqual(answer, { action: 'decline' });
      assert.match(io.err(), /looks like a secret; secrets are never typed into a server's form/);
    }
  });

  it('--accept-defaults is refused for the built-in server, which asks on the terminal itself', async () => {
    const { code, stderr } = await wallet(['tools', '--accept-defaults']);
    assert.equal(code, 2);
    assert.match(stderr, /--accept-defaults answers another server/);
  });
});
