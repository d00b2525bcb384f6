import { expect, it } from 'vitest';
import { pendingSchemaChanges } from '../services/platform/src/db/migrations/index.ts';

it('the schema in prisma/schema/ matches what the committed migrations create', async () => {
  const missing = await pendingSchemaChanges();
  expect(missing, 'the schema changed without a migration: run npm run db:migration:create -- <name>').toBeUndefined();
});
