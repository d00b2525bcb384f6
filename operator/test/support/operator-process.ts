// The operator process (src/process.ts) with the test renderer, for tests that signal or kill it. Like
// main.ts it first starts again with the container's heap when there is no container (src/heap.ts).
// TEST_FREEZE_AFTER_STEP=<step name>: the first pass through that step never ends, like a process that
// hangs in the middle of a pass; it prints {"message":"frozen"} so the test knows when to kill it.
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

await runOperatorProcess(testRender, freezeAfter ? shopSteps.map((step) => (step.name === freezeAfter ? frozenAfter(step) : step)) : undefined);
