import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Platform } from '@shop/platform';
import type { ApiServices } from './graphql/context.ts';

export type AppPlatform = Pick<Platform, 'config' | 'logger' | 'metrics' | 'database' | 'cache' | 'broker' | 'masterKeys'>;

/** What every area plugin is registered with. */
export interface AreaOptions {
  readonly platform: AppPlatform;
  readonly services: ApiServices;
}

/**
 * An area of the api (catalog, orders, ...; an extension's too) as a Fastify plugin named `name`.
 * It runs after the graphql plugin and the areas it names: one missing stops the boot with
 * Fastify's "The dependency '<name>' of plugin '<area>' is not registered" instead of failing at
 * request time.
 */
export function areaPlugin(
  name: string,
  dependencies: readonly string[],
  register: (app: FastifyInstance, options: AreaOptions) => void | Promise<void>,
) {
  return fp<AreaOptions>(async (app, options) => register(app, options), {
    name,
    dependencies: ['graphql', ...dependencies],
    fastify: '5.x',
  });
}

export type AreaPlugin = ReturnType<typeof areaPlugin>;
