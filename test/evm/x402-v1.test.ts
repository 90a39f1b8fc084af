/**
 * evm_x402_fetch speaks x402 version 1 too (the `X-PAYMENT` header, requirements in the 402
 * body, networks by name): on an anvil node with Base Sepolia's chain id (84532, `base-sepolia` in
 * version 1), a resource answered by hand with `@x402/core`'s encoders and settled by the packages'
 * own version 1 facilitator. The balances move by the price.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodePaymentSignatureHeader, encodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequirements } from '@x402/core/types';
import { ethers } from 'ethers';
import type { Address } from 'viem';
import { ANVIL_FIRST_ACCOUNT, ANVIL_MNEMONIC, startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { compilePermitToken, deployPermitToken } from '../helpers/erc20.js';
import { tempHome } from '../helpers/io.js';
import { importAnvilInto, localServer, type ToolCaller } from '../helpers/mcp.js';
import { startX402Server, type X402Server } from '../helpers/x402.js';

const PASSPHRASE = 'x402 v1 passphrase';
const BASE_SEPOLIA = 84532;
const PAYEE = ethers.HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, "m/44'/60'/0'/0/4").address as Address;
const PRICE = 25_000n;

describe('evm_x402_fetch with x402 version 1 (anvil as base-sepolia)', () => {
  let node: AnvilNode;
  let home: string;
  let token: Address;
  let contract: ethers.Contract;
  let provider: ethers.JsonRpcProvider;
  let server: X402Server;
  let owner: ToolCaller;

  before(async () => {
    node = await startAnvil({ chainId: BASE_SEPOLIA });
    provider = new ethers.JsonRpcProvider(node.url, BASE_SEPOLIA, { staticNetwork: true, cacheTimeout: -1 });
    token = ethers.getAddress(
      await deployPermitToken(node, { name: 'Permit Token', symbol: 'PTK', decimals: 6, supply: 10n ** 9n }),
    ) as Address;
    contract = new ethers.Contract(token, compilePermitToken().abi as ethers.InterfaceAbi, provider);
    server = await startX402Server(node, {
      paid: {},
      raw: {
        '/v1': async (c, facilitator) => {
          // A version 1 requirement, as version 1 servers send it (the amount is maxAmountRequired).
          const requirements = {
            scheme: 'exact',
            network: 'base-sepolia',
            maxAmountRequired: PRICE.toString(),
            resource: c.req.url,
            description: 'v1 resource',
            mimeType: 'application/json',
            outputSchema: {},
            payTo: PAYEE,
            maxTimeoutSeconds: 60,
            asset: token,
            extra: { name: 'Permit Token', version: '1' },
          } as unknown as PaymentRequirements;
          const header = c.req.header('X-PAYMENT');
          if (!header)
            return c.json({ x402Version: 1, error: 'X-PAYMENT header is required', accepts: [requirements] }, 402);
          const payload = decodePaymentSignatureHeader(header);
          const verified = await facilitator.verify(payload, requirements);
          if (!verified.isValid) {
            return c.json({ x402Version: 1, error: verified.invalidReason, accepts: [requirements] }, 402);
          }
          const settled = await facilitator.settle(payload, requirements);
          c.header('X-PAYMENT-RESPONSE', encodePaymentResponseHeader(settled));
          return c.json({ content: 'paid in version 1' });
        },
      },
    });
    home = tempHome();
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        evm: {
          networks: {
            'base-sepolia': { url: node.url, chain_id: BASE_SEPOLIA, policy: { allowed_hosts: ['127.0.0.1'] } },
          },
        },
      }),
    );
    owner = await localServer({ env: { WALLET_HOME: home }, passphrase: PASSPHRASE });
    await importAnvilInto(owner, { walletAlias: 'anvil', accountAlias: 'holder' });
  });
  after(async () => {
    provider.destroy();
    await owner.close();
    await server.close();
    await node.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('pays a version 1 requirement and gets the resource; the settlement is on chain', async () => {
    const balanceOf = async (who: Address) => (await contract.getFunction('balanceOf').staticCall(who)) as bigint;
    const [payer, payee] = [await balanceOf(ANVIL_FIRST_ACCOUNT), await balanceOf(PAYEE)];
    const result = await owner.call<Record<string, unknown>>('evm_x402_fetch', {
      address: 'holder',
      resource_url: `${server.origin}/v1`,
      token,
      max_price: PRICE.toString(),
      network: 'base-sepolia',
    });
    assert.deepEqual(
      [result['status'], result['x402_version'], result['paid'], result['settled'], result['amount'], result['payee']],
      [200, 1, true, true, PRICE.toString(), PAYEE],
    );
    assert.deepEqual(JSON.parse(String(result['body'])), { content: 'paid in version 1' });
    assert.deepEqual([await balanceOf(ANVIL_FIRST_ACCOUNT), await balanceOf(PAYEE)], [payer - PRICE, payee + PRICE]);
    assert.equal((await provider.getTransactionReceipt(String(result['hash'])))?.status, 1);
  });
});
