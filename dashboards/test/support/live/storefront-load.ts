// Steady storefront traffic until stopped: product pages (GraphQL), beacon batches (POST /track) and now
// and then a query the schema refuses (400), from a few concurrent visitors.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ShopApiClient } from './shop-api-client.ts';

/** Each visitor's pause between pages: a load the api and its database keep up with. */
const PAUSE_MS = 25;

export interface RunningLoad {
  /** Answers so far by request kind and status, e.g. `track 503`. */
  answers(): ReadonlyMap<string, number>;
  stop(): Promise<void>;
}

export function startStorefrontLoad(client: ShopApiClient, visitors: number): RunningLoad {
  const answers = new Map<string, number>();
  const count = (key: string) => answers.set(key, (answers.get(key) ?? 0) + 1);
  let running = true;

  const visit = async (round: number) => {
    const page = round % 10 === 9 ? await client.malformed() : await client.products();
    count(`graphql ${page.status}`);
    count(`track ${await client.track()}`);
  };
  const visitor = async () => {
    for (let round = 0; running; round += 1) {
      await visit(round).catch(() => count('connection failed'));
      await sleep(PAUSE_MS); // why: the load's pace: a visitor's pause between pages
    }
  };
  const visiting = Promise.all(Array.from({ length: visitors }, visitor));

  return {
    answers: () => answers,
    async stop() {
      running = false;
      await visiting;
    },
  };
}
