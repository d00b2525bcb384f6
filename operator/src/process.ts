import { getHeapStatistics } from 'node:v8';
import { KubeConfig } from '@kubernetes/client-node';
import type { RenderShop } from '@shop/cdk8s';
import { ConfigError, createLogger, loadOrExit } from '@shop/runtime';
import { loadConfig, type OperatorConfig } from './config.ts';
import { startOperator, type OperatorOptions } from './operator.ts';

/**
 * The operator as a process: configuration from the environment (one line per bad variable, exit 78),
 * then reconciling until SIGTERM or SIGINT, which stops the watches, lets the pass under way finish,
 * releases the Lease and exits 0. A second signal kills the process at once. On losing the Lease it
 * cancels the passes under way and exits 1 at once: the Deployment starts it again as a follower.
 */
export async function runOperatorProcess(render: RenderShop, overrides: Pick<OperatorOptions, 'steps' | 'now'> = {}): Promise<void> {
  const { config, kubeConfig } = loadOrExit(configure);
  const logger = createLogger({ level: config.logLevel, service: 'shop-operator' });
  const operator = await startOperator({
    kubeConfig,
    render,
    ...overrides,
    namespace: config.watchNamespace,
    secretNamespaces: config.secretNamespaces,
    metricsPort: config.metricsPort,
    leaderElection: config.leaderElection,
    identity: config.identity,
    resyncMs: config.resyncMs,
    runbookBaseUrl: config.runbookBaseUrl,
    jobHistoryLimit: config.jobHistoryLimit,
    podStartTimeoutMs: config.podStartTimeoutMs,
    rolloutPace: config.rolloutPace,
    requestTimeoutMs: config.requestTimeoutMs,
    passTimeoutMs: config.passTimeoutMs,
    onLostLeadership: () => {
      logger.error('exiting: lost the leader Lease');
      // The log writes are asynchronous: exiting at once could drop lines still being written (the one
      // naming the new holder among them), or print them out of order. Exit once they are out, or after
      // a few seconds whatever happens (reconciling stopped already; the Lease is not written again).
      const exit = () => process.exit(1);
      setTimeout(exit, 5_000);
      logger.flush(exit);
    },
    logger,
  });
  logger.info(
    {
      identity: config.identity,
      namespace: config.watchNamespace ?? '(all)',
      metricsPort: operator.metricsPort,
      lease: config.leaderElection ? `${config.leaderElection.namespace}/${config.leaderElection.name}` : '(no leader election)',
      // The heap flags it runs with (see heap.ts), and the heap V8 made of them.
      nodeFlags: process.execArgv.join(' '),
      heapLimitMb: Math.round(getHeapStatistics().heap_size_limit / 2 ** 20),
    },
    'started',
  );
  const shutdown = (signal: NodeJS.Signals) => {
    // Without listeners, a second signal ends the process the default way: at once.
    process.off('SIGTERM', shutdown);
    process.off('SIGINT', shutdown);
    logger.info({ signal }, 'stopping: finishing the pass under way');
    operator.stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ error: error instanceof Error ? error.message : String(error) }, 'could not stop cleanly');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

function configure(): { config: OperatorConfig; kubeConfig: KubeConfig } {
  const config = loadConfig(process.env);
  const kubeConfig = new KubeConfig();
  try {
    if (config.kubeconfigPath) kubeConfig.loadFromFile(config.kubeconfigPath);
    else kubeConfig.loadFromCluster();
  } catch (error) {
    throw new ConfigError([`KUBECONFIG: cannot be loaded: ${error instanceof Error ? error.message : String(error)}`]);
  }
  return { config, kubeConfig };
}
