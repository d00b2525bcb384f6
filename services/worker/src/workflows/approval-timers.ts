import { condition } from '@temporalio/workflow';
import type { Nudges } from './signals.ts';
import { msUntil } from './time.ts';

export interface ApprovalTimers {
  readonly nudges: Nudges;
  /** ISO instants; a reminder at or after the expiry is not sent. */
  readonly remindAt: string;
  readonly expiresAt: string;
  /** Re-reads the subject (an activity): true while it still waits for a decision. */
  stillPending(): Promise<boolean>;
  remind(): Promise<unknown>;
  expire(): Promise<unknown>;
  /** Where the workflow shows the timer it waits for. */
  showDeadline(deadline: string | null): void;
}

/**
 * Waits for staff to decide, as the approval workflows do: a reminder once `remindAt` passes, then
 * the expiry at `expiresAt`. A nudge (a signal that the subject changed) makes it re-read the
 * subject, so it stops as soon as the decision is stored, whoever took it.
 */
export async function awaitDecision(timers: ApprovalTimers): Promise<void> {
  let reminded = Date.parse(timers.remindAt) >= Date.parse(timers.expiresAt);
  let mark = timers.nudges.mark();
  while (await timers.stillPending()) {
    const next = reminded ? timers.expiresAt : timers.remindAt;
    timers.showDeadline(next);
    const nudged = await condition(timers.nudges.since(mark), msUntil(next));
    mark = timers.nudges.mark();
    if (nudged) continue;
    if (reminded) await timers.expire();
    else await timers.remind();
    reminded = true;
  }
  timers.showDeadline(null);
}
