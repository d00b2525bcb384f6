// Kafka in KRaft mode (broker and controller in one JVM) from the jars provision.ts collected.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { PROVISION_COMMAND, isKafkaProvisioned, kafkaDir, kafkaLibsDir } from './layout.ts';
import { requireProvisioned, startServer, type ServerHandle, type ServerPlacement } from './managed-server.ts';
import { findOnPath, freePort, launch, run } from './proc.ts';

const JVM_FLAGS = ['-Xmx512m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Xshare:auto', '-Djava.awt.headless=true'];

function serverProperties(port: number, controllerPort: number, logDirs: string): string {
  const properties: Record<string, string | number | boolean> = {
    'process.roles': 'broker,controller',
    'node.id': 1,
    'controller.quorum.voters': `1@127.0.0.1:${controllerPort}`,
    listeners: `PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${port}`,
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    'log.dirs': logDirs,
    'num.partitions': 3,
    'auto.create.topics.enable': true,
    'default.replication.factor': 1,
    'min.insync.replicas': 1,
    'offsets.topic.replication.factor': 1,
    'transaction.state.log.replication.factor': 1,
    'transaction.state.log.min.isr': 1,
    // One partition each instead of 50: the first consumer group / transaction starts much faster.
    'offsets.topic.num.partitions': 1,
    'transaction.state.log.num.partitions': 1,
    'group.initial.rebalance.delay.ms': 0,
    // The default 128 MiB compaction buffer would take a quarter of the 512 MiB heap.
    'log.cleaner.dedupe.buffer.size': 8 * 1024 * 1024,
  };
  return Object.entries(properties)
    .map(([key, value]) => `${key}=${value}`)
    .join('\n');
}

const LOG4J = `log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
`;

/** Same format as `kafka-storage.sh random-uuid` (base64url of 16 random bytes), minus one JVM start. */
function clusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

async function distinctFreePorts(): Promise<[number, number]> {
  const first = await freePort();
  for (;;) {
    const second = await freePort();
    if (second !== first) return [first, second];
  }
}

let javaPromise: Promise<{ java: string; versionHash: string }> | undefined;

function javaInstallation(): Promise<{ java: string; versionHash: string }> {
  javaPromise ??= (async () => {
    const java = findOnPath('java');
    if (!java) throw new Error(`Java (to run Kafka) is not installed; run: ${PROVISION_COMMAND}`);
    const version = await run(java, ['-version']);
    return { java, versionHash: createHash('sha256').update(version).digest('hex').slice(0, 12) };
  })();
  javaPromise.catch(() => (javaPromise = undefined));
  return javaPromise;
}

/**
 * Kafka's class-data archive: provision.ts records the classes one broker start loads, so later
 * starts skip most class loading (about 1 s of 3). An archive only works with the JVM that made it,
 * hence the `java -version` hash in its name.
 */
export async function kafkaClassArchive(): Promise<string> {
  const { versionHash } = await javaInstallation();
  return join(kafkaDir(), `classes-${versionHash}.jsa`);
}

export interface KafkaPlacement extends ServerPlacement {
  /** The KRaft controller's listener; a free port when left out. */
  readonly controllerPort?: number;
}

export function startKafka(placement: KafkaPlacement = {}): Promise<ServerHandle> {
  return startKafkaWithJvmFlags([], placement);
}

/** `brokerJvmFlags` are added to the broker's JVM only (not to the one-off storage format). */
export async function startKafkaWithJvmFlags(brokerJvmFlags: readonly string[], placement: KafkaPlacement = {}): Promise<ServerHandle> {
  requireProvisioned(`Kafka (${kafkaLibsDir()})`, isKafkaProvisioned());
  const { java } = await javaInstallation();
  const classArchive = await kafkaClassArchive();
  const archiveFlags = existsSync(classArchive) ? [`-XX:SharedArchiveFile=${classArchive}`] : [];
  return startServer(
    'kafka',
    async (baseDir) => {
      const [port, controllerPort] =
        placement.port !== undefined && placement.controllerPort !== undefined
          ? [placement.port, placement.controllerPort]
          : await distinctFreePorts();
      const propertiesFile = join(baseDir, 'server.properties');
      const log4jFile = join(baseDir, 'log4j.properties');
      const logDirs = join(baseDir, 'kraft-logs');
      await writeFile(propertiesFile, serverProperties(port, controllerPort, logDirs));
      await writeFile(log4jFile, LOG4J);
      const jvm = [...JVM_FLAGS, ...archiveFlags, `-Dlog4j.configuration=file:${log4jFile}`, '-cp', `${kafkaLibsDir()}/*`];
      // A kept dir was formatted by its first start: its cluster id stays.
      if (!existsSync(join(logDirs, 'meta.properties'))) {
        await run(java, [...jvm, 'kafka.tools.StorageTool', 'format', '-t', clusterId(), '-c', propertiesFile]);
      }

      const url = `127.0.0.1:${port}`;
      const client = new Kafka({
        clientId: 'shop-infra-probe',
        brokers: [url],
        logLevel: logLevel.NOTHING,
        connectionTimeout: 1_000,
        retry: { retries: 0 },
      });
      return {
        name: 'kafka',
        port,
        url,
        baseDir,
        launch: (logFile) => launch(java, [...jvm, ...brokerJvmFlags, 'kafka.Kafka', propertiesFile], { logFile }),
        probe: async () => {
          const admin = client.admin();
          try {
            await admin.connect();
            await admin.listTopics();
            // Also wait for the group coordinator: the first FindCoordinator creates __consumer_offsets,
            // and tests' first consumer would otherwise hit "group coordinator is not available".
            await admin.describeGroups(['shop-infra-probe']);
          } finally {
            await admin.disconnect().catch(() => undefined);
          }
        },
        readyTimeoutMs: 90_000,
        stopSignal: 'SIGTERM',
        stopTimeoutMs: 20_000,
      };
    },
    placement.dir,
  );
}
