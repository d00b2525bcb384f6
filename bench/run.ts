import { benchHealth } from './health.ts';
import { benchImages } from './images.ts';
import { benchMoney } from './money.ts';
import { benchMoneyRefunds } from './money-refunds.ts';
import { benchOperator } from './operator.ts';
import { benchOutbox } from './outbox.ts';
import { benchSecrets } from './secrets.ts';
import { benchStorefront } from './storefront.ts';
import { benchTrack } from './track.ts';
import { benchWorker } from './worker.ts';

const BENCHES: Record<string, () => Promise<void>> = {
  health: benchHealth,
  images: benchImages,
  money: async () => {
    await benchMoney();
    await benchMoneyRefunds();
  },
  outbox: benchOutbox,
  operator: benchOperator,
  secrets: benchSecrets,
  storefront: benchStorefront,
  track: benchTrack,
  worker: benchWorker,
};

const names = process.argv.slice(2);
const unknown = names.filter((name) => !(name in BENCHES));
if (unknown.length > 0) {
  process.stderr.write(`unknown benchmark: ${unknown.join(', ')} (known: ${Object.keys(BENCHES).join(', ')})\n`);
  process.exit(64);
}
for (const name of names.length > 0 ? names : Object.keys(BENCHES)) await BENCHES[name]?.();
