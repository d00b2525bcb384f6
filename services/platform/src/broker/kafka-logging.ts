import { logLevel, type logCreator } from 'kafkajs';
import type { Logger } from '@shop/runtime';

/**
 * Routes kafkajs' own log lines into the process logger, tagged with the kafkajs namespace.
 * Connection errors are left out: kafkajs logs one per reconnect attempt, while the component that
 * needed the connection (relay, consumer, probe) reports an outage once and its recovery.
 */
export function kafkaLogCreator(logger: Logger): logCreator {
  return () =>
    ({ namespace, level, log }) => {
      if (namespace === 'Connection' && level === logLevel.ERROR) return;
      const { message, ...extra } = log;
      const fields = { kafka: namespace, ...extra };
      if (level === logLevel.ERROR) logger.error(fields, message);
      else if (level === logLevel.WARN) logger.warn(fields, message);
      else if (level === logLevel.INFO) logger.info(fields, message);
      else logger.debug(fields, message);
    };
}
