// Starts one PostgreSQL, Redis, Kafka and Temporal for the whole vitest run; tests reach them through inject().
import type { TestProject } from 'vitest/node';
import { startKafka, startPostgres, startRedis, startTemporal, type ServerHandle } from './servers.ts';
import type { TemporalHandle } from './temporal.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const results = await Promise.allSettled([startPostgres(), startRedis(), startKafka(), startTemporal()]);
  const handles = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const disposeAll = async (): Promise<void> => {
    await Promise.allSettled(handles.map((handle: ServerHandle) => handle.dispose()));
  };

  const failures = results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
  if (failures.length > 0) {
    await disposeAll();
    throw new AggregateError(failures, failures.map((f) => (f instanceof Error ? f.message : String(f))).join('\n\n'));
  }

  const [postgres, redis, kafka, temporal] = handles as [ServerHandle, ServerHandle, ServerHandle, TemporalHandle];
  project.provide('postgresUrl', postgres.url);
  project.provide('redisUrl', redis.url);
  project.provide('kafkaBrokers', kafka.url);
  project.provide('temporalAddress', temporal.url);
  project.provide('temporalMetricsUrl', temporal.metricsUrl);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`[infra] postgres ${postgres.url}, redis ${redis.url}, kafka ${kafka.url}, temporal ${temporal.url} ready in ${seconds} s`);
  return disposeAll;
}
