import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * A tiny EVM JSON-RPC endpoint on 127.0.0.1 that answers at once, so the tools get past "connect"
 * and into their own code without any real chain: the chain id of the network named in the path
 * (`/evm/<network>`), a 1-ether balance, nonce 0, fixed gas and fees, a latest block, no
 * transactions or receipts, and a refusal for every broadcast (so nothing can wait on a receipt).
 * `/junk` answers HTTP 200 with HTML, the way a wrong URL does.
 */
export type EvmStub = {
  url(path: string): string;
  /** How many JSON-RPC calls it answered. */
  calls: number;
  close(): Promise<void>;
};

const HASH = `0x${'11'.repeat(32)}`;

export async function startEvmStub(chainIds: Readonly<Record<string, number>>): Promise<EvmStub> {
  const stub = { calls: 0 };
  const server = createServer((req, res) => {
    void handle(req, res, chainIds, stub).catch(() => res.destroy());
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    get calls() {
      return stub.calls;
    },
    close: () => stop(server),
  };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  chainIds: Readonly<Record<string, number>>,
  stub: { calls: number },
): Promise<void> {
  const body = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  if (path === '/junk') return send(res, 200, '<html><body>not an RPC endpoint</body></html>', 'text/html');
  const network = /^\/evm\/([a-z0-9-]+)$/.exec(path)?.[1];
  const chainId = network === undefined ? undefined : chainIds[network];
  if (req.method !== 'POST' || chainId === undefined) return send(res, 404, 'Not found', 'text/plain');
  let request: unknown;
  try {
    request = JSON.parse(body);
  } catch {
    return send(
      res,
      200,
      JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }),
      'application/json',
    );
  }
  const answer = (call: unknown) => {
    stub.calls += 1;
    const record = typeof call === 'object' && call !== null ? (call as Record<string, unknown>) : {};
    return { jsonrpc: '2.0', id: record['id'] ?? null, ...reply(String(record['method']), chainId) };
  };
  const replyBody = Array.isArray(request) ? request.map(answer) : answer(request);
  send(res, 200, JSON.stringify(replyBody), 'application/json');
}

function reply(method: string, chainId: number): { result: unknown } | { error: { code: number; message: string } } {
  const hex = (value: bigint | number) => `0x${value.toString(16)}`;
  switch (method) {
    case 'eth_chainId':
      return { result: hex(chainId) };
    case 'eth_getBalance':
      return { result: hex(10n ** 18n) };
    case 'eth_getTransactionCount':
      return { result: '0x0' };
    case 'eth_blockNumber':
      return { result: '0x10' };
    case 'eth_estimateGas':
      return { result: hex(21_000) };
    case 'eth_gasPrice':
    case 'eth_maxPriorityFeePerGas':
      return { result: hex(1_000_000_000) };
    case 'eth_call':
      return { result: '0x' };
    case 'eth_getCode':
      return { result: '0x' };
    case 'eth_getTransactionByHash':
    case 'eth_getTransactionReceipt':
      return { result: null };
    case 'eth_getBlockByNumber':
      return {
        result: {
          number: '0x10',
          hash: HASH,
          parentHash: HASH,
          timestamp: '0x6553f100',
          nonce: '0x0000000000000000',
          difficulty: '0x0',
          totalDifficulty: '0x0',
          gasLimit: hex(30_000_000),
          gasUsed: '0x0',
          baseFeePerGas: hex(1_000_000_000),
          miner: `0x${'00'.repeat(20)}`,
          extraData: '0x',
          logsBloom: `0x${'00'.repeat(256)}`,
          mixHash: HASH,
          receiptsRoot: HASH,
          sha3Uncles: HASH,
          stateRoot: HASH,
          transactionsRoot: HASH,
          size: '0x200',
          transactions: [],
          uncles: [],
        },
      };
    case 'eth_sendRawTransaction':
      return { error: { code: -32000, message: 'nonce too low' } };
    default:
      return { error: { code: -32601, message: `the method ${method} does not exist/is not available` } };
  }
}

function send(res: ServerResponse, status: number, body: string, type: string): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function stop(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}
