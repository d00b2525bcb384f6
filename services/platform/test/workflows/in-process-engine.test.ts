import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@shop/runtime';
import type { EngineRun, WorkflowStart } from '../../src/workflows/engine.ts';
import { InProcessWorkflowEngine, type InProcessSweep } from '../../src/workflows/in-process-engine.ts';

interface Inputs {
  readonly Refund: { readonly id: string };
  readonly Lifecycle: { readonly id: string };
}

interface Context {
  readonly name: string;
}

function capturingLogger() {
  const lines: { level: string; msg: string; workflow_id?: string; sweep?: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as (typeof lines)[number]);
      done();
    },
  });
  return { logger: createLogger({ level: 'INFO', service: 'test', destination: sink }), lines };
}

/** A promise and the function that settles it. */
function gate(): { opened: Promise<void>; open(): void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

const refund = (id: string, cause = `event-${id}`): WorkflowStart<Inputs, 'Refund'> => ({
  workflowType: 'Refund',
  workflowId: `refund-${id}`,
  input: { id },
  signal: 'refundRequested',
  signalArgs: [],
  rerunnable: true,
  cause,
});

describe('the in-process workflow engine', () => {
  it('runs only the workflow types it was given, and takes starts only between begin and stop', async () => {
    const { logger } = capturingLogger();
    const engine = new InProcessWorkflowEngine<Inputs, Context>({ logger, workflows: { Refund: async () => undefined }, sweeps: [] });
    expect(engine.runs('Refund')).toBe(true);
    expect(engine.runs('Lifecycle')).toBe(false);

    await expect(engine.start(refund('1'))).rejects.toThrow('the in-process workflow engine is not started yet');
    engine.begin(() => ({ name: 'context' }));
    expect(() => engine.begin(() => ({ name: 'again' }))).toThrow('the in-process workflow engine has begun already');
    await expect(engine.start({ ...refund('1'), workflowType: 'Lifecycle' })).rejects.toThrow('Lifecycle does not run in this process');
    await engine.start(refund('1'));
    await engine.stop();
    await expect(engine.start(refund('2'))).rejects.toThrow('the in-process workflow engine is stopped');
  });

  it('queues a start and resolves at once, then runs the queue one at a time with the context, named after the start', async () => {
    const { logger } = capturingLogger();
    const first = gate();
    const runs: { input: { id: string }; run: EngineRun; context: Context }[] = [];
    let running = 0;
    let mostAtOnce = 0;
    const engine = new InProcessWorkflowEngine<Inputs, Context>({
      logger,
      workflows: {
        async Refund(context, input, run) {
          running += 1;
          mostAtOnce = Math.max(mostAtOnce, running);
          runs.push({ input, run, context });
          if (input.id === '1') await first.opened;
          running -= 1;
        },
      },
      sweeps: [],
    });
    engine.begin(() => ({ name: 'outbox' }));

    await engine.start(refund('1', 'event-a'));
    await engine.start(refund('2', 'event-b'));
    // Queued and not started yet: that run does this start's work too.
    await engine.start(refund('2', 'event-c'));
    // Running already (it may have read its entity before this start's change): queued again.
    await engine.start(refund('1', 'event-d'));
    expect(runs.map(({ input }) => input.id)).toEqual(['1']);

    first.open();
    await engine.idle();
    expect(runs.map(({ input, run }) => [input.id, run])).toEqual([
      ['1', { workflow: 'Refund', workflowId: 'embedded-refund-1', runId: 'event-a' }],
      ['2', { workflow: 'Refund', workflowId: 'embedded-refund-2', runId: 'event-b' }],
      ['1', { workflow: 'Refund', workflowId: 'embedded-refund-1', runId: 'event-d' }],
    ]);
    expect(runs.every(({ context }) => context.name === 'outbox')).toBe(true);
    expect(mostAtOnce).toBe(1);
    await engine.stop();
  });

  it('logs a run that fails, does not retry it, and runs the next', async () => {
    const { logger, lines } = capturingLogger();
    const ran: string[] = [];
    const engine = new InProcessWorkflowEngine<Inputs, Context>({
      logger,
      workflows: {
        async Refund(_context, { id }) {
          ran.push(id);
          if (id === '1') throw new Error('the gateway did not answer');
        },
      },
      sweeps: [],
    });
    engine.begin(() => ({ name: 'outbox' }));
    await engine.start(refund('1'));
    await engine.start(refund('2'));
    await engine.idle();
    expect(ran).toEqual(['1', '2']);
    const warnings = lines.filter((line) => line.level === 'WARNING');
    expect(warnings.map((line) => [line.msg, line.workflow_id])).toEqual([
      ['the in-process run of embedded-refund-1 failed; it is not retried here', 'embedded-refund-1'],
    ]);
    await engine.stop();
  });

  it('stops once the workflows queued before it have run', async () => {
    const { logger } = capturingLogger();
    const release = gate();
    const ended: string[] = [];
    const engine = new InProcessWorkflowEngine<Inputs, Context>({
      logger,
      workflows: {
        async Refund(_context, { id }) {
          await release.opened;
          ended.push(id);
        },
      },
      sweeps: [],
    });
    engine.begin(() => ({ name: 'outbox' }));
    await engine.start(refund('1'));
    await engine.start(refund('2'));
    const stopped = engine.stop();
    release.open();
    await stopped;
    expect(ended).toEqual(['1', '2']);
  });

  it('makes sweep passes of the declared batch from begin, back to back while one finds more, each a run of its own', async () => {
    const { logger, lines } = capturingLogger();
    const caughtUp = gate();
    const passes: { context: Context; limit: number; run: EngineRun; asOf: Date }[] = [];
    const sweep: InProcessSweep<Context> = {
      name: 'expire-holds',
      workflowType: 'ExpireHoldsWorkflow',
      everyMs: 60_000,
      batch: 25,
      async pass(context, { asOf, limit, run }) {
        passes.push({ context, limit, run, asOf });
        const more = passes.length < 3;
        if (!more) caughtUp.open();
        return { processed: more ? limit : 4, more };
      },
    };
    const engine = new InProcessWorkflowEngine<Inputs, Context>({ logger, workflows: {}, sweeps: [sweep] });
    const before = new Date();
    engine.begin(() => ({ name: 'outbox' }));
    await caughtUp.opened;
    await engine.stop();

    expect(passes.map(({ context, limit, run }) => [context.name, limit, run.workflow, run.workflowId])).toEqual([
      ['outbox', 25, 'ExpireHoldsWorkflow', 'embedded-expire-holds'],
      ['outbox', 25, 'ExpireHoldsWorkflow', 'embedded-expire-holds'],
      ['outbox', 25, 'ExpireHoldsWorkflow', 'embedded-expire-holds'],
    ]);
    expect(new Set(passes.map(({ run }) => run.runId)).size).toBe(3);
    expect(passes.every(({ asOf }) => asOf >= before)).toBe(true);
    expect(lines.filter((line) => line.sweep === 'expire-holds').map((line) => line.msg)).toEqual([
      'expire-holds: 25 done',
      'expire-holds: 25 done',
      'expire-holds: 4 done',
    ]);
  });
});
