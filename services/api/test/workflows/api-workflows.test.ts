import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { Client, Connection } from '@temporalio/client';
import { createLogger, InProcessWorkflowEngine, loadConfig, type EventPayloads, type Prisma } from '@shop/platform';
import { workflowIds } from '@shop/domain/workflows';
import { expect, inject, it } from 'vitest';
import { workflowEngine } from '../../src/workflows/api-workflows.ts';
import { TemporalWorkflowEngine } from '../../src/workflows/temporal-engine.ts';
import { workflowTriggers } from '../../src/workflows/workflow-triggers.ts';
import { createTestNamespace } from '../../../../test/infra/isolation.ts';

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

it('without WORKFLOW_HOST chooses the in-process engine: only refund requests start there, and one warning says the sweeps run in the api', async () => {
  const { logger, messages } = capturingLogger();
  const engine = await workflowEngine(loadConfig({ NODE_ENV: 'test' }), logger);
  expect(engine).toBeInstanceOf(InProcessWorkflowEngine);
  expect(workflowTriggers(engine).map((listener) => [listener.name, listener.event])).toEqual([
    ['refund_execution_workflow', 'payments.refund_requested'],
  ]);
  expect(messages.filter((message) => /^WORKFLOW_HOST is not set: the api runs the periodic sweeps itself/.test(message))).toHaveLength(1);
  await engine.stop();
});

it('with WORKFLOW_HOST chooses Temporal, whose triggers start workflows on the real server', async () => {
  const namespace = await createTestNamespace('api-workflows');
  const config = loadConfig({ NODE_ENV: 'test', WORKFLOW_HOST: inject('temporalAddress'), WORKFLOW_NAMESPACE: namespace });
  const { logger, messages } = capturingLogger();
  const engine = await workflowEngine(config, logger);
  expect(engine).toBeInstanceOf(TemporalWorkflowEngine);
  const triggers = workflowTriggers(engine);
  expect(triggers.map((listener) => [listener.name, listener.event])).toEqual([
    ['order_lifecycle_workflow', 'order.status_changed'],
    ['customer_approval_workflow', 'customer.approval_changed'],
    ['refund_execution_workflow', 'payments.refund_requested'],
  ]);
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
  const starter = triggers.find((listener) => listener.event === 'order.status_changed');
  // The triggers talk to the engine only; the transaction client is not used by them.
  await starter?.handle({} as Prisma.TransactionClient, orderPlaced);
  await engine.stop();

  const connection = await Connection.connect({ address: inject('temporalAddress') });
  try {
    const description = await new Client({ connection, namespace }).workflow.getHandle(workflowIds.orderLifecycle('4242')).describe();
    expect(description.type).toBe('OrderLifecycleWorkflow');
  } finally {
    await connection.close();
  }
  expect(messages.join('\n')).not.toMatch(/WORKFLOW_HOST is not set/);
});
