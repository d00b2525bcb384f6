import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

const REQUEST = 'shop:cluster-metrics-request';
const ANSWER = 'shop:cluster-metrics-answer';
/** prom-client's primary gives up on a worker that does not answer after this long; workers wait a little more for its reason. */
const PRIMARY_TIMEOUT_MS = 5_000;

interface MetricsRequest {
  readonly type: typeof REQUEST;
  readonly id: number;
}

interface MetricsAnswer {
  readonly type: typeof ANSWER;
  readonly id: number;
  readonly text?: string;
  readonly error?: string;
}

const isRequest = (message: unknown): message is MetricsRequest => (message as MetricsRequest | null)?.type === REQUEST;
const isAnswer = (message: unknown): message is MetricsAnswer => (message as MetricsAnswer | null)?.type === ANSWER;

/**
 * In the primary: answers a worker's request with the metrics of every worker, aggregated by prom-client
 * (counters and histograms summed, gauges as each declares), so Prometheus scraping any worker sees the pod.
 */
export function answerMetricsRequests(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: unknown) => {
    if (!isRequest(message)) return;
    const answer = (fields: Pick<MetricsAnswer, 'text' | 'error'>) => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: message.id, ...fields } satisfies MetricsAnswer);
    };
    aggregator.clusterMetrics().then(
      (text) => answer({ text }),
      (error: unknown) => answer({ error: error instanceof Error ? error.message : String(error) }),
    );
  });
}

/**
 * In a worker: reads the pod's aggregated metrics through the primary. `registry` is what this worker
 * contributes when the primary collects.
 */
export function clusterMetricsReader(registry: Registry, timeoutMs = PRIMARY_TIMEOUT_MS + 1_000): () => Promise<string> {
  AggregatorRegistry.setRegistries([registry]);
  // Constructing one in a worker makes prom-client answer the primary's collection requests.
  void new AggregatorRegistry();
  const waiting = new Map<number, (answer: MetricsAnswer) => void>();
  let nextId = 0;
  process.on('message', (message: unknown) => {
    if (isAnswer(message)) waiting.get(message.id)?.(message);
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`the api primary did not answer with the workers' metrics in ${timeoutMs} ms`));
      }, timeoutMs);
      waiting.set(id, (answer) => {
        clearTimeout(timer);
        waiting.delete(id);
        if (answer.text === undefined)
          reject(new Error(`the workers' metrics could not be collected: ${answer.error ?? 'no reason given'}`));
        else resolve(answer.text);
      });
      process.send?.({ type: REQUEST, id } satisfies MetricsRequest);
    });
}
