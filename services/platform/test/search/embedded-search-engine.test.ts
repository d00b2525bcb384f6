import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import { afterAll, beforeAll } from 'vitest';
import { PrismaClient } from '../../src/db/database.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded-postgres.ts';
import { postgresSearchEngine } from '../../src/search/postgres-search-engine.ts';
import type { SearchEngine } from '../../src/search/search-engine.ts';
import { searchEngineContract } from '../support/search-engine-contract.ts';

// The embedded database (PGlite, what `npm start` uses without DATABASE_URL) has its own build of
// PostgreSQL's text search: the adapter must behave the same on it.
let dataDir: string;
let embedded: EmbeddedPostgres;
let prisma: PrismaClient;
let engine: SearchEngine;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'embedded-search-'));
  embedded = await startEmbeddedPostgres(dataDir);
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: embedded.url, max: 1 }) });
  engine = postgresSearchEngine(prisma);
});

afterAll(async () => {
  await prisma?.$disconnect();
  await embedded?.close();
  await rm(dataDir, { recursive: true, force: true });
});

searchEngineContract('PostgreSQL full text on the embedded PGlite', () => engine);
