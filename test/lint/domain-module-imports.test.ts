// The lint rule behind services/domain/modules.json: a domain module reaches another only through its
// entry, and only one it declares; everything else reaches a module through its package subpath.
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

async function restricted(code: string, file: string): Promise<string[]> {
  const [result] = await new ESLint({ cwd: ROOT }).lintText(code, { filePath: `${ROOT}${file}` });
  return (result?.messages ?? []).filter((message) => message.ruleId === 'no-restricted-imports').map((message) => message.message);
}

describe('domain module imports', () => {
  const inRefunds = 'services/domain/src/refunds/refund-requests.ts';

  it("refuses another module's internals, an undeclared module's entry, and the package itself", async () => {
    const code = `
      import { goodsHaveLeft } from '../orders/order-status.ts';
      import { findReturn } from '../returns/index.ts';
      import { checkout } from '@shop/domain/flows';
      export const used = [goodsHaveLeft, findReturn, checkout];
    `;
    const messages = await restricted(code, inRefunds);
    expect(messages).toHaveLength(3);
    expect(messages[0]).toContain('The refunds module imports only the entries');
  }, 60_000);

  it('accepts a declared module through its entry, and its own files', async () => {
    const code = `
      import { goodsHaveLeft } from '../orders/index.ts';
      import { refundKeys } from './refund-execution.ts';
      export const used = [goodsHaveLeft, refundKeys];
    `;
    expect(await restricted(code, inRefunds)).toEqual([]);
  }, 60_000);

  it('refuses a path into a module from outside the domain, and accepts its subpath', async () => {
    const file = 'services/api/src/orders/resolvers.ts';
    const pastTheEntry = ['..', '..', '..', 'domain', 'src', 'orders', 'order-listing.ts'].join('/');
    expect(await restricted(`import { findOrder } from '${pastTheEntry}';\nexport const used = findOrder;\n`, file)).toHaveLength(1);
    expect(await restricted(`import { findOrder } from '@shop/domain/orders';\nexport const used = findOrder;\n`, file)).toEqual([]);
  }, 60_000);
});
