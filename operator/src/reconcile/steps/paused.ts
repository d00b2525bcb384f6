import type { ReconcileStep } from '../pass.ts';

/**
 * spec.paused: the pass ends before any step that writes (the Shop's status aside), so nothing is
 * applied, deleted or pruned and no Job starts; the next pass after it is false again goes on.
 */
export const paused: ReconcileStep = {
  name: 'paused',
  conditions: [],
  async run(pass) {
    if (pass.shop.spec.paused !== true) return undefined;
    return {
      phase: 'Paused',
      reason: 'Paused',
      message: 'spec.paused is true: the operator changes nothing of this Shop until it is false',
    };
  },
};
