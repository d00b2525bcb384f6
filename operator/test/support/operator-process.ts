// The operator process (src/process.ts) with the test renderer, for tests that signal or kill it. Like
// main.ts it first starts again with the container's heap when there is no container (src/heap.ts).
// TEST_FREEZE_AFTER_STEP=<step name>: the first pass through that step never ends, like a process that
// hangs in the middle of a pass; it prints {"message":"frozen"} so the test knows when to kill it.
// TEST_CLOCK_OFFSET_MS=<ms>: its passes run that far ahead of the system clock (past a key's retention).
import type { ReconcileStep } from '../../src/reconcile/pass.ts';
import { restartWithContainerHeap } from '../../src/heap.ts';

restartWithContainerHeap();

const { shopSteps } = await import('../../src/reconcile/steps.ts');
const { runOperatorProcess } = await import('../../src/process.ts');
const { testRender } = await import('./test-renderer.ts');

const freezeAfter = process.env.TEST_FREEZE_AFTER_STEP;

function frozenAfter(step: ReconcileStep): ReconcileStep {
  return {
    ...step,
    run: async (pass) => {
      await step.run(pass);
      process.stdout.write(`${JSON.stringify({ message: 'frozen', step: step.name })}\n`);
      return new Promise<never>(() => {});
    },
  };
}

const clockOffsetMs = Number(process.env.TEST_CLOCK_OFFSET_MS ?? '0');

await runOperatorProcess(testRender, {
  ...(freezeAfter ? { steps: shopSteps.map((step) => (step.name === freezeAfter ? frozenAfter(step) : step)) } : {}),
  ...(clockOffsetMs === 0 ? {} : { now: () => new Date(Date.now() + clockOffsetMs) }),
});
