/**
 * An HTTP server's headers (`--header`, a named server's stored ones) go with requests to its own
 * origin only (`withHeadersFor` in src/mcp/client.ts): never to an authorization server or an
 * identity provider elsewhere, which the SDK would reach with them had they been its `requestInit`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FetchLike } from '@modelcontextprotocol/client';
import { withHeadersFor } from '../../src/mcp/client.js';

describe("an HTTP server's headers", () => {
  it('go to its own origin only, under the headers of the request itself', async () => {
    const sent: { url: string; headers: Record<string, string> }[] = [];
    const next: FetchLike = (url, init) => {
      sent.push({ url: String(url), headers: Object.fromEntries(new Headers(init?.headers).entries()) });
      return Promise.resolve(new Response(null, { status: 204 }));
    };
    const fetchFn = withHeadersFor('https://mcp.example.com', { 'X-Api-Key': 'k1', Accept: 'text/plain' }, next);
    await fetchFn('https://mcp.example.com/mcp', { method: 'POST', headers: { accept: 'application/json' } });
    await fetchFn(new URL('https://mcp.example.com/.well-known/oauth-protected-resource/mcp'));
    await fetchFn('https://auth.example.com/token', { method: 'POST', headers: { 'content-type': 'x' } });
    await fetchFn('https://mcp.example.com:8443/token');
    await fetchFn('http://mcp.example.com/token');
    assert.deepEqual(sent, [
      { url: 'https://mcp.example.com/mcp', headers: { accept: 'application/json', 'x-api-key': 'k1' } },
      {
        url: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
        headers: { accept: 'text/plain', 'x-api-key': 'k1' },
      },
      { url: 'https://auth.example.com/token', headers: { 'content-type': 'x' } },
      { url: 'https://mcp.example.com:8443/token', headers: {} },
      { url: 'http://mcp.example.com/token', headers: {} },
    ]);
  });

  it('without any, the fetch is left as it is', () => {
    const next: FetchLike = () => Promise.resolve(new Response(null));
    assert.equal(withHeadersFor('https://mcp.example.com', {}, next), next);
  });
});
