// The one polling loop of the tests, for every package. A single value compared once reads best as
// vitest's `expect.poll(() => value).toBe(...)`; these are for the rest.

export interface PollOptions {
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
  /** Why waiting longer is pointless (e.g. the process that should answer exited); stops at once with it. */
  readonly abortReason?: () => string | undefined;
}

/**
 * Runs `probe` until it returns without throwing (its expectations hold), and returns its value. On the
 * deadline, fails with the probe's last error: what was expected and what was there.
 */
export async function eventually<T>(
  probe: () => T | Promise<T>,
  { timeoutMs = 15_000, intervalMs = 50, abortReason }: PollOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await probe();
    } catch (error) {
      const aborted = abortReason?.();
      if (aborted !== undefined) throw new Error(aborted, { cause: error });
      if (Date.now() >= deadline) throw error;
    }
    // why: the pause between two probes of the polling loop itself
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Polls `condition` until it holds; throws naming `what` after `timeoutMs`. */
export async function waitFor(
  condition: () => Promise<boolean> | boolean,
  timeoutMs = 30_000,
  what = 'the condition',
  intervalMs = 100,
): Promise<void> {
  await eventually(
    async () => {
      if (!(await condition())) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    },
    { timeoutMs, intervalMs },
  );
}

/**
 * Reads until `done` holds for what was read, and returns the last read: on the deadline too, so that
 * the caller's assertion shows what is missing. An error of `read` itself is thrown.
 */
export async function readUntil<T>(read: () => T | Promise<T>, done: (value: T) => boolean, options: PollOptions = {}): Promise<T> {
  const notYet = new Error('not yet');
  let last: { value: T } | undefined;
  try {
    return await eventually(async () => {
      const value = await read();
      last = { value };
      if (!done(value)) throw notYet;
      return value;
    }, options);
  } catch (error) {
    if (error === notYet && last !== undefined) return last.value;
    throw error;
  }
}
