import { THRESHOLDS } from '../../../alerts/src/thresholds.ts';
import { perSecond, SHOP, shopDashboard, timeseries } from '../panels.ts';

export function brokerDashboard() {
  return shopDashboard(
    'shop-broker',
    'Shop / Broker and consumer lag',
    'Events from the outbox to the broker (the relay) and from the broker to the consumer: throughput, lag, failures and the outbox backlog.',
  )
    .withPanel(
      timeseries({
        title: 'Events published',
        description:
          'Events the outbox relay published to the broker per second, by topic. Zero while orders are placed means the relay or the broker is down: the outbox backlog grows.',
        unit: 'ops',
        queries: [{ expr: perSecond('outbox_published_total', { by: 'topic' }), legend: '{{topic}}' }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Messages consumed',
        description:
          'Messages the consumer finished per second, by group and result: done (handled), duplicate (already handled, dropped) or dead_lettered. Any dead-lettered message is an event a handler gave up on.',
        unit: 'ops',
        queries: [{ expr: perSecond('consumer_messages_handled_total', { by: 'group, result' }), legend: '{{group}} {{result}}' }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Consumer lag by group',
        description:
          'Messages each consumer group has not committed yet. Above the red line (1000) for 5 minutes fires ConsumerLagHigh; a lag that keeps growing fires ConsumerLagIncreasing: the consumer is down, stuck on a message or too slow.',
        unit: 'short',
        alertThreshold: THRESHOLDS.consumerLag,
        queries: [{ expr: `sum by (group) (kafka_consumergroup_lag{${SHOP}})`, legend: '{{group}}' }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Consumer handler failures',
        description:
          'Handler runs that failed per second, by group and topic (each retry counts). Steady failures on one topic mean a handler cannot process its messages: the lag of that group grows.',
        unit: 'ops',
        queries: [{ expr: perSecond('consumer_handler_failures_total', { by: 'group, topic' }), legend: '{{group}} {{topic}}' }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Outbox pending events',
        description:
          'Events written by a transaction and not yet published (topic) or handed to every in-process listener (in_process). It stays near zero; a backlog that grows means the relay, the broker or a listener is stuck.',
        unit: 'short',
        queries: [{ expr: `max by (kind) (outbox_pending_events{${SHOP}})`, legend: '{{kind}}' }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Outbox oldest pending event',
        description:
          'Age of the oldest event still waiting in the outbox. Above the red line (5 minutes) for 5 minutes fires OutboxEventsWaiting: downstream systems see events late.',
        unit: 's',
        alertThreshold: THRESHOLDS.outboxOldestPendingSeconds,
        queries: [{ expr: `max by (kind) (outbox_oldest_pending_age_seconds{${SHOP}})`, legend: '{{kind}}' }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Publish failures',
        description:
          'Relay passes per second whose publish to the broker failed. Above zero: the broker is unreachable or refuses writes; events wait in the outbox and are retried.',
        unit: 'ops',
        queries: [{ expr: perSecond('outbox_publish_failures_total'), legend: 'failed passes' }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Listener deliveries by result',
        description:
          'In-process listener runs per second, by listener and result: done, retry (failed, tried again) or parked (failed on every retry and given up: see Parked deliveries).',
        unit: 'ops',
        queries: [{ expr: perSecond('outbox_listener_deliveries_total', { by: 'listener, result' }), legend: '{{listener}} {{result}}' }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Parked deliveries',
        description:
          'Listener deliveries given up after every retry and not replayed yet, by listener. From the red line (1) OutboxDeliveriesParked fires, until npm run outbox:replay has run them: each is an effect of an event that is missing.',
        unit: 'short',
        alertThreshold: 1,
        queries: [{ expr: `max by (listener) (outbox_parked_deliveries{${SHOP}})`, legend: '{{listener}}' }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Admin search index age',
        description:
          'Time since the admin search index last took a document, read by the consumer, which runs the shop.search group. It grows while nothing is ordered or registered; above the red line (5 minutes) while shop.search has lag, AdminSearchIndexStale fires: staff search shows old orders and customers.',
        unit: 's',
        alertThreshold: THRESHOLDS.adminSearchStaleSeconds,
        queries: [{ expr: `time() - max by (index) (search_last_indexed_timestamp_seconds{${SHOP}})`, legend: '{{index}}' }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Schema validation warnings',
        description:
          'Events per second emitted with a payload that does not match their JSON Schema and published anyway (EVENT_SCHEMA_MODE=warn), by topic. Any fires EventSchemaValidationWarnings: consumers may reject or misread them.',
        unit: 'ops',
        queries: [{ expr: perSecond('event_schema_validation_warnings_total', { by: 'topic' }), legend: '{{topic}}' }],
      }),
    );
}
