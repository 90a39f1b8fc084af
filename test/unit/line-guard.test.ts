import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { judgeLine } from '../../src/mcp/stdio/line-guard.js';
import { StdioLineTransport } from '../../src/mcp/stdio/line-transport.js';

describe('JSON-RPC line guard', () => {
  const passes = [
    '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    '{"jsonrpc":"2.0","id":"a","method":"x","params":{}}',
    '{"jsonrpc":"2.0","id":2,"method":"constructor"}',
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    '{"jsonrpc":"2.0","id":1,"result":{}}',
    '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}',
  ];
  for (const line of passes) {
    it(`passes ${line}`, () => assert.deepEqual(judgeLine(line), { pass: true, message: JSON.parse(line) }));
  }

  const replies: [string, number, string | number | null][] = [
    ['garbage{', -32700, null],
    ['[{"jsonrpc":"2.0","id":1,"method":"x"}]', -32600, null],
    ['42', -32600, null],
    ['{"id":7}', -32600, 7],
    // A request that lost its method is still owed an answer with its id (issue 19).
    ['{"jsonrpc":"2.0","id":7,"params":{}}', -32600, 7],
    ['{"jsonrpc":"2.0","id":"q"}', -32600, 'q'],
    ['{"jsonrpc":"1.0","id":3,"method":"x"}', -32600, 3],
    ['{"jsonrpc":"2.0","id":4,"method":5}', -32600, 4],
    ['{"jsonrpc":"2.0","id":{},"method":"x"}', -32600, null],
    ['{"jsonrpc":"2.0","id":1.5,"method":"x"}', -32600, null],
    ['{"jsonrpc":"2.0","id":5,"method":"x","params":[1]}', -32600, 5],
    // Well-formed JSON-RPC that MCP's message schema refuses: the SDK would drop these unanswered.
    ['{"jsonrpc":"2.0","id":"m","method":"ping","params":{"_meta":5}}', -32602, 'm'],
    ['{"jsonrpc":"2.0","id":"n","method":"ping","params":{"_meta":null}}', -32602, 'n'],
    ['{"jsonrpc":"2.0","id":6,"method":"ping","params":{"_meta":{"progressToken":{}}}}', -32602, 6],
    ['{"jsonrpc":"2.0","id":7,"method":"ping","trace":"abc"}', -32600, 7],
    ['{"jsonrpc":"2.0","id":8,"method":"ping","result":{}}', -32600, 8],
    // Invalid params of a spec method: -32602, where the SDK's handler wrapper answers -32603.
    ['{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"cursor":5}}', -32602, 9],
    ['{"jsonrpc":"2.0","id":10,"method":"initialize","params":{"protocolVersion":5}}', -32602, 10],
  ];
  for (const [line, code, id] of replies) {
    it(`answers ${line} with ${code}`, () => {
      const verdict = judgeLine(line);
      assert.ok(!verdict.pass && verdict.reply, 'a reply is owed');
      assert.equal(verdict.reply.error.code, code);
      assert.equal(verdict.reply.id, id);
      assert.ok(!verdict.reply.error.message.includes('\n'), 'one line');
    });
  }

  it('names the invalid param', () => {
    const verdict = judgeLine('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":5}}');
    assert.ok(!verdict.pass);
    assert.match(verdict.reply?.error.message ?? '', /params\.cursor/);
  });

  it('drops malformed responses and notifications, and blank lines, without a reply', () => {
    for (const line of [
      '{"jsonrpc":"2.0","id":1,"result":{},"error":{}}',
      '{"jsonrpc":"1.0","id":5,"result":{}}',
      '{"jsonrpc":"2.0","method":"notifications/x","params":{"_meta":5}}',
      '{"jsonrpc":"2.0","method":"notifications/x","extra":1}',
      '   ',
    ]) {
      const verdict = judgeLine(line);
      assert.ok(!verdict.pass && verdict.reply === undefined, line);
    }
  });
});

describe('stdio line transport', () => {
  it('splits stdin into lines across chunks, answers bad ones, refuses an oversized line whole', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const rejected: string[] = [];
    const transport = new StdioLineTransport(stdin, stdout, (reason) => rejected.push(reason), 64);
    const received: JSONRPCMessage[] = [];
    transport.onmessage = (message) => received.push(message);
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
    await transport.start();
    for (const chunk of [
      '{"jsonrpc":"2.0","id":1,',
      '"method":"a"}\r\nnot json\n',
      `{"pad":"${'x'.repeat(100)}"}\n`,
      '{"jsonrpc":"2.0","id":2,"method":"b"}',
    ]) {
      stdin.write(chunk);
    }
    stdin.end();
    // The two requests passed on are still owed answers: the transport waits for them.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const answers = received.map((message) =>
      transport.send({ jsonrpc: '2.0', id: (message as { id: number }).id, result: {} }),
    );
    await Promise.all(answers);
    await closed;
    assert.deepEqual(received, [
      { jsonrpc: '2.0', id: 1, method: 'a' },
      { jsonrpc: '2.0', id: 2, method: 'b' },
    ]);
    assert.deepEqual(rejected, ['parse-error', 'too-large']);
    const written = String(stdout.read() ?? '');
    assert.deepEqual(
      written
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { error?: { code: number } }).error?.code),
      [-32700, -32600, undefined, undefined],
    );
    await assert.rejects(transport.send({ jsonrpc: '2.0', id: 3, result: {} }), /closed/);
  });

  it('sends the answers of one turn of the event loop in one write, in order', async () => {
    const writes: string[] = [];
    const stdout = new Writable({
      write(chunk: Buffer, _encoding, done) {
        writes.push(chunk.toString());
        done();
      },
    });
    const transport = new StdioLineTransport(new PassThrough(), stdout);
    await transport.start();
    await Promise.all([1, 2, 3].map((id) => transport.send({ jsonrpc: '2.0', id, result: {} })));
    await transport.send({ jsonrpc: '2.0', id: 4, result: {} });
    assert.deepEqual(writes, [
      '{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n{"jsonrpc":"2.0","id":3,"result":{}}\n',
      '{"jsonrpc":"2.0","id":4,"result":{}}\n',
    ]);
    await transport.close();
  });

  it('fails a send, never leaves it pending, once stdout is gone', async () => {
    const stdout = new PassThrough({ highWaterMark: 16 });
    const transport = new StdioLineTransport(new PassThrough(), stdout);
    await transport.start();
    const full = transport.send({ jsonrpc: '2.0', id: 1, result: { pad: 'x'.repeat(64) } });
    await new Promise((resolve) => setImmediate(resolve));
    stdout.destroy();
    await assert.rejects(full, /closed/);
    await assert.rejects(transport.send({ jsonrpc: '2.0', id: 2, result: {} }), /closed/);
  });

  it('holds later answers, in order, until a full stdout drains', async () => {
    const stdout = new PassThrough({ highWaterMark: 16 });
    const transport = new StdioLineTransport(new PassThrough(), stdout);
    await transport.start();
    const first = transport.send({ jsonrpc: '2.0', id: 1, result: { pad: 'x'.repeat(64) } });
    await new Promise((resolve) => setImmediate(resolve));
    const second = transport.send({ jsonrpc: '2.0', id: 2, result: {} });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(stdout.writableLength > 0, true);
    assert.ok(!String(stdout.read() ?? '').includes('"id":2'), 'the second answer waited');
    stdout.resume();
    await Promise.all([first, second]);
    await transport.close();
  });

  it('waits for stdout to drain when it is full', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough({ highWaterMark: 16 });
    const transport = new StdioLineTransport(stdin, stdout);
    await transport.start();
    let sent = false;
    const sending = transport
      .send({ jsonrpc: '2.0', id: 1, result: { pad: 'x'.repeat(64) } })
      .then(() => (sent = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(sent, false, 'not sent before the reader takes it');
    stdout.resume();
    await sending;
    assert.equal(sent, true);
    await transport.close();
  });

  it('answers every request it passed on after stdin ends, then closes (issue 19)', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const transport = new StdioLineTransport(stdin, stdout);
    const received: JSONRPCMessage[] = [];
    transport.onmessage = (message) => received.push(message);
    let closed = false;
    transport.onclose = () => (closed = true);
    await transport.start();
    stdin.end('{"jsonrpc":"2.0","id":1,"method":"slow"}\n{"jsonrpc":"2.0","id":2,"method":"slower"}\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(received.length, 2);
    assert.equal(closed, false, 'not closed while answers are owed');
    await transport.send({ jsonrpc: '2.0', id: 2, result: {} });
    assert.equal(closed, false);
    await transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(closed, true);
    const ids = String(stdout.read())
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { id: number }).id);
    assert.deepEqual(ids, [2, 1]);
  });

  it('closes after the bound when an answer never comes, and does not wait for a cancelled request', async () => {
    const stdin = new PassThrough();
    const transport = new StdioLineTransport(stdin, new PassThrough(), undefined, undefined, 100);
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
    await transport.start();
    const started = performance.now();
    stdin.end('{"jsonrpc":"2.0","id":1,"method":"never"}\n');
    await closed;
    assert.ok(performance.now() - started >= 90, 'waited for the bound');

    const stdin2 = new PassThrough();
    const transport2 = new StdioLineTransport(stdin2, new PassThrough(), undefined, undefined, 60_000);
    const closed2 = new Promise<void>((resolve) => (transport2.onclose = resolve));
    await transport2.start();
    stdin2.end(
      '{"jsonrpc":"2.0","id":"c","method":"never"}\n' +
        '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c"}}\n',
    );
    await closed2;
  });

  it('drain(ms) stops reading, waits for answers owed, then closes (SIGTERM)', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const transport = new StdioLineTransport(stdin, stdout);
    const received: JSONRPCMessage[] = [];
    transport.onmessage = (message) => received.push(message);
    await transport.start();
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"a"}\n');
    await new Promise((resolve) => setImmediate(resolve));
    const draining = transport.drain(5_000);
    stdin.write('{"jsonrpc":"2.0","id":2,"method":"late"}\n');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(received.length, 1, 'nothing is read after drain');
    await transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    await draining;
    assert.match(String(stdout.read()), /"id":1/);
  });

  async function batchSession(version: string) {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const transport = new StdioLineTransport(stdin, stdout);
    transport.onmessage = (message) => {
      if ('method' in message && 'id' in message) {
        const result = message.method === 'initialize' ? { protocolVersion: version } : { echo: message.method };
        void transport.send({ jsonrpc: '2.0', id: message.id, result });
      }
    };
    await transport.start();
    let pending = '';
    let wake = (): void => undefined;
    stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      wake();
    });
    let syncs = 0;
    /** The next complete line the transport writes (no timer: a slow machine only waits longer). */
    const nextLine = async (): Promise<string> => {
      for (;;) {
        const end = pending.indexOf('\n');
        if (end >= 0) {
          const line = pending.slice(0, end);
          pending = pending.slice(end + 1);
          return line;
        }
        await new Promise<void>((resolve) => (wake = resolve));
      }
    };
    /**
     * Writes `line`, then a ping of its own: whatever the transport answers before that ping's
     * reply is the answer to `line` (none, for notifications only).
     */
    const exchange = async (line: string): Promise<unknown[]> => {
      const sync = `sync-${++syncs}`;
      stdin.write(`${line}\n${JSON.stringify({ jsonrpc: '2.0', id: sync, method: 'ping' })}\n`);
      const answers: unknown[] = [];
      for (;;) {
        const answer = JSON.parse(await nextLine()) as { id?: unknown };
        if (answer.id === sync) return answers;
        answers.push(answer);
      }
    };
    await exchange(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    );
    return { exchange, transport };
  }

  it('answers a JSON-RPC batch with one array on a 2025-03-26 connection (issue 19)', async () => {
    const { exchange, transport } = await batchSession('2025-03-26');
    const [answer] = await exchange(
      '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},42,' +
        '{"jsonrpc":"2.0","id":"b","method":"tools/list"}]',
    );
    assert.ok(Array.isArray(answer));
    assert.deepEqual(
      new Set((answer as { id: unknown; error?: { code: number } }[]).map((reply) => reply.error?.code ?? reply.id)),
      new Set([1, 'b', -32600]),
    );
    assert.deepEqual(
      await exchange('[{"jsonrpc":"2.0","method":"notifications/x"}]'),
      [],
      'notifications only: nothing',
    );
    const [empty] = (await exchange('[]')) as { id: null; error: { code: number } }[];
    assert.equal(empty?.error.code, -32600);
    await transport.close();
  });

  it('refuses a batch on a connection that negotiated 2025-06-18 or later', async () => {
    const { exchange, transport } = await batchSession('2025-06-18');
    const [answer] = (await exchange('[{"jsonrpc":"2.0","id":1,"method":"ping"}]')) as {
      id: null;
      error: { code: number };
    }[];
    assert.equal(answer?.error.code, -32600);
    assert.equal(answer?.id, null);
    await transport.close();
  });
});
