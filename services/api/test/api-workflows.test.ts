import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { Client, Connection } from '@temporalio/client';
import { createLogger, loadConfig, type EventPayloads, type Prisma } from '@shop/platform';
import { workflowIds } from '@shop/domain/workflows';
import { expect, inject, it } from 'vitest';
import { apiWorkflows } from '../src/workflows/api-workflows.ts';
import { createTestNamespace } from '../../../test/infra/isolation.ts';

function capturingLogger() {
  const messages: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      messages.push(String((JSON.parse(chunk.toString()) as { msg: unknown }).msg));
      done();
    },
  });
  return { logger: createLogger({ level: 'INFO', service: 'api', destination: sink }), messages };
}

it('without WORKFLOW_HOST registers no starters, only the in-process refunds, and warns that the sweeps run in the api', async () => {
  const { logger, messages } = capturingLogger();
  const workflows = await apiWorkflows(loadConfig({ NODE_ENV: 'test' }), logger);
  expect(workflows.listeners.map((listener) => [listener.name, listener.event])).toEqual([['refund_execution_in_process', 'payments.refund_requested']]);
  expect(messages.join('\n')).toMatch(/^WORKFLOW_HOST is not set: the api runs the periodic sweeps itself/m);
  await workflows.stop();
});

it('with WORKFLOW_HOST loads the Temporal client and its starters start workflows on the real server', async () => {
  const namespace = await createTestNamespace('api-workflows');
  const config = loadConfig({ NODE_ENV: 'test', WORKFLOW_HOST: inject('temporalAddress'), WORKFLOW_NAMESPACE: namespace });
  const { logger, messages } = capturingLogger();
  const workflows = await apiWorkflows(config, logger);
  const orderPlaced: EventPayloads['order.status_changed'] = {
    event_id: randomUUID(),
    schema_version: 1,
    occurred_at: new Date().toISOString(),
    order_id: '4242',
    order_number: 'A-4242',
    from: null,
    to: 'PENDING_PAYMENT',
    reason: null,
  };
  const starter = workflows.listeners.find((listener) => listener.event === 'order.status_changed');
  // The starters talk to Temporal only; the transaction client is not used by them.
  await starter?.handle({} as Prisma.TransactionClient, orderPlaced);
  await workflows.stop();

  const connection = await Connection.connect({ address: inject('temporalAddress') });
  try {
    const description = await new Client({ connection, namespace }).workflow.getHandle(workflowIds.orderLifecycle('4242')).describe();
    expect(description.type).toBe('OrderLifecycleWorkflow');
  } finally {
    await connection.close();
  }
  expect(messages.join('\n')).not.toMatch(/WORKFLOW_HOST is not set/);
});
