import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { JsonRpcLineGuard, judgeLine } from '../../src/mcp/stdio/line-guard.js';

describe('JSON-RPC line guard', () => {
  const passes = [
    '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    '{"jsonrpc":"2.0","id":"a","method":"x","params":{}}',
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    '{"jsonrpc":"2.0","id":1,"result":{}}',
    '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}',
  ];
  for (const line of passes) it(`passes ${line}`, () => assert.deepEqual(judgeLine(line), { pass: true }));

  const replies: [string, number, string | number | null][] = [
    ['garbage{', -32700, null],
    ['[{"jsonrpc":"2.0","id":1,"method":"x"}]', -32600, null],
    ['42', -32600, null],
    ['{"id":7}', -32600, 7],
    ['{"jsonrpc":"1.0","id":3,"method":"x"}', -32600, 3],
    ['{"jsonrpc":"2.0","id":4,"method":5}', -32600, 4],
    ['{"jsonrpc":"2.0","id":{},"method":"x"}', -32600, null],
    ['{"jsonrpc":"2.0","id":5,"method":"x","params":[1]}', -32600, 5],
  ];
  for (const [line, code, id] of replies) {
    it(`answers ${line} with ${code}`, () => {
      const verdict = judgeLine(line);
      assert.equal(verdict.pass, false);
      assert.ok(!verdict.pass && verdict.reply);
      if (!verdict.pass && verdict.reply) {
        assert.equal(verdict.reply.error.code, code);
        assert.equal(verdict.reply.id, id);
      }
    });
  }

  it('drops malformed responses and blank lines without a reply', () => {
    for (const line of ['{"jsonrpc":"2.0","id":1,"result":{},"error":{}}', '   ']) {
      const verdict = judgeLine(line);
      assert.ok(!verdict.pass && verdict.reply === undefined);
    }
  });

  it('splits a stream into lines, across chunks, and refuses an oversized line whole', async () => {
    const rejected: number[] = [];
    const guard = new JsonRpcLineGuard((reply) => rejected.push(reply?.error.code ?? 0), 64);
    const chunks = [
      '{"jsonrpc":"2.0","id":1,',
      '"method":"a"}\nnot json\n',
      `{"pad":"${'x'.repeat(100)}"}\n`,
      '{"jsonrpc":"2.0","id":2,"method":"b"}',
    ];
    const passed: string[] = [];
    guard.on('data', (chunk: Buffer) => passed.push(chunk.toString()));
    await new Promise<void>((resolve) => {
      guard.on('end', resolve);
      Readable.from(chunks.map((chunk) => Buffer.from(chunk))).pipe(guard);
    });
    assert.deepEqual(passed.join('').trim().split('\n'), [
      '{"jsonrpc":"2.0","id":1,"method":"a"}',
      '{"jsonrpc":"2.0","id":2,"method":"b"}',
    ]);
    assert.deepEqual(rejected, [-32700, -32600]);
  });
});
