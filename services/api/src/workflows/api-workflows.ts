import { openPaymentGateway, workflowMetrics, type Config, type EventListener, type Logger, type Platform, type RunningOutbox } from '@shop/platform';
import { PERIODIC_WORKFLOWS } from '@shop/domain/workflows';
import { sweepPace } from '@shop/domain';
import { embeddedRefunds } from './embedded-refunds.ts';
import { startEmbeddedSweeps } from './embedded-sweeps.ts';

/** The api's part in the workflows: the outbox listeners that start and signal them, or the sweeps it runs itself. */
export interface ApiWorkflows {
  /** Register these with the outbox before it starts. */
  readonly listeners: readonly EventListener[];
  /** Once the outbox runs; the platform gives the sweeps their metrics and the payment gateway (voiding expiring authorizations). */
  start(outbox: Pick<RunningOutbox, 'emit' | 'transaction'>, platform: Pick<Platform, 'metrics' | 'database' | 'masterKeys'>): void;
  stop(): Promise<void>;
}

const everyMinutes = (ms: number) => `every ${ms / 60_000} min`;

/**
 * With WORKFLOW_HOST, a Temporal client behind the listeners. Without it, the sweeps in-process and
 * one warning naming what needs an engine. The Temporal client (about 12 MB of resident memory once
 * loaded) is imported only when an engine is configured.
 */
export async function apiWorkflows(config: Config, logger: Logger): Promise<ApiWorkflows> {
  const { workflowHost } = config;
  if (workflowHost !== undefined) {
    const { temporalWorkflows } = await import('./temporal-workflows.ts');
    return temporalWorkflows({ ...config, workflowHost });
  }
  const schedules = PERIODIC_WORKFLOWS.map((periodic) => `${periodic.scheduleId} ${everyMinutes(periodic.everyMs)}`).join(', ');
  logger.warn(
    `WORKFLOW_HOST is not set: the api runs the periodic sweeps itself (${schedules}), so unpaid orders are still cancelled when their stock hold runs out; ` +
      'the workflow timers that need an engine are off: the fulfilment window of paid orders, the reminders and expiry of order and business-account approvals, ' +
      'and the capture of fulfilled orders\' cards; refund requests run in-process, and one left REQUESTED (a gateway that did not answer, a refund left pending) runs again on the reconcile-stranded-money schedule',
  );
  let sweeps: { stop(): Promise<void> } | undefined;
  const refunds = embeddedRefunds();
  return {
    listeners: [refunds.listener],
    start(outbox, { metrics, database, masterKeys }) {
      const gateway = openPaymentGateway({ config, db: database.prisma, masterKeys });
      const deps = { emit: outbox.emit, now: () => new Date(), gateway };
      refunds.start({ transaction: outbox.transaction, deps, logger });
      sweeps = startEmbeddedSweeps({ transaction: outbox.transaction, deps, metrics: workflowMetrics(metrics), pace: sweepPace(config.sweepRowsPerSecond), logger });
    },
    async stop() {
      await sweeps?.stop();
      await refunds.idle();
    },
  };
}
