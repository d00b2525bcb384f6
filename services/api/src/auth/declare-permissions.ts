import type { DiscoveredExtension, Logger, PrismaClient } from '@shop/platform';
import { CORE_PERMISSIONS, upsertPermissions } from '@shop/domain/auth';

export interface PermissionDeclaration {
  /** Settles once the permissions are declared (or the retries were stopped). */
  readonly done: Promise<void>;
  /** Stops retrying (at shutdown). */
  stop(): void;
}

export interface DeclarationOptions {
  readonly extensions?: readonly DiscoveredExtension[];
  /**
   * Runs first in every attempt. The api applies the extensions' migrations there: they need the core
   * tables, so they wait for a migrated database as the permissions do.
   */
  readonly before?: () => Promise<void>;
  readonly retryMs?: number;
}

/**
 * Upserts CORE_PERMISSIONS and the permissions the extensions' manifests declare (each with the
 * extension's id as its source) at boot, additively: nothing is removed. The api still starts when the
 * database is down or not migrated yet (/ready reports it); the declaration is then retried until it succeeds.
 */
export function declarePermissions(prisma: PrismaClient, logger: Logger, options: DeclarationOptions = {}): PermissionDeclaration {
  const { extensions = [], before, retryMs = 5_000 } = options;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let settle: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (settle = resolve));

  const attempt = async (failures: number): Promise<void> => {
    try {
      await before?.();
      const { created, updated } = await prisma.$transaction(async (tx) => {
        const declared = [await upsertPermissions(tx, CORE_PERMISSIONS)];
        for (const { id, manifest } of extensions) declared.push(await upsertPermissions(tx, manifest.permissions ?? [], id));
        return { created: declared.flatMap((each) => each.created), updated: declared.flatMap((each) => each.updated) };
      });
      logger.info({ created, updated }, `permissions declared (${created.length} new, ${updated.length} changed)`);
      settle();
    } catch (error) {
      if (failures === 0)
        logger.warn(
          { err: error },
          `could not ${before === undefined ? '' : 'migrate the extensions or '}declare the permissions; retrying every ${retryMs} ms`,
        );
      if (stopped) return settle();
      timer = setTimeout(() => void attempt(failures + 1), retryMs);
      timer.unref();
    }
  };
  void attempt(0);
  return {
    done,
    stop() {
      stopped = true;
      clearTimeout(timer);
      settle();
    },
  };
}
