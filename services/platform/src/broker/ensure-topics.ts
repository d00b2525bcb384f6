import type { Kafka } from 'kafkajs';
import type { Logger } from '@shop/runtime';

/**
 * Creates the topics of `names` that do not exist yet, with the cluster's default partition count
 * and replication factor (-1 asks the broker for its defaults). Existing topics are never altered,
 * so a platform team that pre-creates topics with its own settings keeps them. Failing to create
 * (no Create ACL, say) is logged, not fatal: the topics may be managed elsewhere or auto-created.
 */
export async function ensureTopics(kafka: Kafka, names: readonly string[], logger: Logger): Promise<void> {
  const admin = kafka.admin();
  try {
    await admin.connect();
    const existing = new Set(await admin.listTopics());
    const missing = names.filter((name) => !existing.has(name));
    if (missing.length === 0) return;
    await admin.createTopics({
      topics: missing.map((topic) => ({ topic, numPartitions: -1, replicationFactor: -1 })),
      waitForLeaders: true,
    });
    logger.info({ topics: missing }, `created ${missing.length} missing event topics with the cluster's defaults`);
  } catch (error) {
    logger.warn(
      { err: error, topics: names },
      'could not make sure the event topics exist; publishing relies on them existing or being auto-created',
    );
  } finally {
    await admin.disconnect();
  }
}
