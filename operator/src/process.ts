import { getHeapStatistics } from 'node:v8';
import { KubeConfig } from '@kubernetes/client-node';
import type { RenderShop } from '@shop/cdk8s';
import { ConfigError, loadConfig, type OperatorConfig } from './config.ts';
import { jsonLogger } from './log.ts';
import { startOperator } from './operator.ts';
import type { ReconcileStep } from './reconcile/pass.ts';

/** EX_CONFIG from sysexits.h: started with a bad configuration. */
export const EXIT_CONFIG = 78;

/**
 * The operator as a process: configuration from the environment (one line per bad variable, exit 78),
 * then reconciling until SIGTERM or SIGINT, which stops the watches, lets the pass under way finish,
 * releases the Lease and exits 0. A second signal kills the process at once.
 */
export async function runOperatorProcess(render: RenderShop, steps?: readonly ReconcileStep[]): Promise<void> {
  const { config, kubeConfig } = configureOrExit();
  const logger = jsonLogger({ component: 'shop-operator' });
  const operator = await startOperator({
    kubeConfig,
    render,
    steps,
    namespace: config.watchNamespace,
    metricsPort: config.metricsPort,
    leaderElection: config.leaderElection,
    identity: config.identity,
    resyncMs: config.resyncMs,
    logger,
  });
  logger.info('started', {
    identity: config.identity,
    namespace: config.watchNamespace ?? '(all)',
    metricsPort: operator.metricsPort,
    lease: config.leaderElection ? `${config.leaderElection.namespace}/${config.leaderElection.name}` : '(no leader election)',
    // The heap flags it runs with (see heap.ts), and the heap V8 made of them.
    nodeFlags: process.execArgv.join(' '),
    heapLimitMb: Math.round(getHeapStatistics().heap_size_limit / 2 ** 20),
  });
  const shutdown = (signal: NodeJS.Signals) => {
    // Without listeners, a second signal ends the process the default way: at once.
    process.off('SIGTERM', shutdown);
    process.off('SIGINT', shutdown);
    logger.info('stopping: finishing the pass under way', { signal });
    operator.stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error('could not stop cleanly', { error: error instanceof Error ? error.message : String(error) });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

function configureOrExit(): { config: OperatorConfig; kubeConfig: KubeConfig } {
  try {
    const config = loadConfig(process.env);
    const kubeConfig = new KubeConfig();
    try {
      if (config.kubeconfigPath) kubeConfig.loadFromFile(config.kubeconfigPath);
      else kubeConfig.loadFromCluster();
    } catch (error) {
      throw new ConfigError([`KUBECONFIG: cannot be loaded: ${error instanceof Error ? error.message : String(error)}`]);
    }
    return { config, kubeConfig };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) process.stderr.write(`config error: ${problem}\n`);
    process.exit(EXIT_CONFIG);
  }
}
