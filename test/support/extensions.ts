// The repository's extensions (extensions/) as tests need them: their migrations applied, their variables listed.
import pg from 'pg';
import {
  configureExtensions,
  createLogger,
  discoverExtensions,
  extensionConfigDeclaration,
  migrateExtensions,
  VARIABLES,
  type DiscoveredExtension,
  type VariableDoc,
} from '@shop/platform';
import { REPO_ROOT } from '../../services/platform/src/repository.ts';

function repositoryExtensions(): Promise<DiscoveredExtension[]> {
  return discoverExtensions({ root: REPO_ROOT, logger: createLogger({ level: 'ERROR', service: 'test' }) });
}

/** Applies the migrations of the repository's extensions (extensions/) to the database at `url`; the api does it at boot, tests that run a worker or consumer without an api first do it here. */
export async function migrateRepositoryExtensions(url: string): Promise<void> {
  const extensions = await repositoryExtensions();
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    await migrateExtensions(pool, extensions);
  } finally {
    await pool.end();
  }
}

/** The variables each extension of the repository declares (its `shop.config`), in discovery order. */
export async function extensionVariables(): Promise<VariableDoc[]> {
  const declarations = await Promise.all((await repositoryExtensions()).map(extensionConfigDeclaration));
  return declarations.flatMap((declaration) => declaration?.variables ?? []);
}

/** Every variable the processes read: the core's, then the repository's extensions'. */
export async function repositoryVariables(): Promise<VariableDoc[]> {
  return [...VARIABLES, ...(await extensionVariables())];
}

/** The problems the api, the worker and the consumer would stop on (exit 78) reading the repository's extensions' variables from `env`. */
export async function extensionConfigProblems(env: NodeJS.ProcessEnv): Promise<string[]> {
  return (await configureExtensions(await repositoryExtensions(), env)).problems;
}
