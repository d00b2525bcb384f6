import { describe, expect, it } from 'vitest';
import { runFlow } from '../../src/flows/steps.ts';

describe('runFlow', () => {
  it('answers the last step and undoes nothing when every step succeeds', async () => {
    const undone: string[] = [];
    const result = await runFlow(async ({ step }) => {
      const a = await step(
        'a',
        async () => 1,
        async () => void undone.push('a'),
      );
      return step('b', async () => a + 1);
    });
    expect(result).toBe(2);
    expect(undone).toEqual([]);
  });

  it('undoes the completed steps newest first, each told its result and the failure, then throws the failure', async () => {
    const undone: string[] = [];
    const failure = new Error('the order transaction failed');
    const flow = runFlow(async ({ step }) => {
      await step(
        'first',
        async () => 'one',
        async (result, error) => void undone.push(`first:${result}:${(error as Error).message}`),
      );
      await step('no undo', async () => 'two');
      await step(
        'second',
        async () => 'three',
        async (result) => void undone.push(`second:${result}`),
      );
      await step(
        'fails',
        async () => {
          throw failure;
        },
        async () => void undone.push('fails'),
      );
    });
    await expect(flow).rejects.toBe(failure);
    expect(undone).toEqual(['second:three', 'first:one:the order transaction failed']);
  });

  it('stops undoing at a compensation that fails, and throws both failures naming its step', async () => {
    const undone: string[] = [];
    const failure = new Error('placing failed');
    const flow = runFlow(async ({ step }) => {
      await step(
        'authorize',
        async () => 'tender',
        async () => void undone.push('authorize'),
      );
      await step(
        'reserve',
        async () => 'hold',
        async () => {
          throw new Error('void refused');
        },
      );
      await step('place', async () => {
        throw failure;
      });
    });
    const error = await flow.then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(AggregateError);
    expect((error as AggregateError).message).toBe('undoing the step "reserve" failed after the flow failed');
    expect((error as AggregateError).errors.map((each: Error) => each.message)).toEqual(['placing failed', 'void refused']);
    expect(undone).toEqual([]);
  });
});
