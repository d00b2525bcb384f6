import type { Logger } from '@shop/runtime';

export interface PollingLoopOptions {
  readonly name: string;
  /** One unit of work; returns true when there may be more work right away. */
  readonly pass: () => Promise<boolean>;
  readonly idleMs: number;
  readonly maxBackoffMs: number;
  readonly logger: Logger;
}

/**
 * Runs a pass again at once while there is work, waits `idleMs` when there is none, and backs off
 * exponentially while passes fail (logging the first failure of an outage and the recovery).
 */
export class PollingLoop {
  readonly #options: PollingLoopOptions;
  #running: Promise<void> | undefined;
  #stopped = false;
  #wake: (() => void) | undefined;

  constructor(options: PollingLoopOptions) {
    this.#options = options;
  }

  start(): void {
    this.#stopped = false;
    this.#running ??= this.#run();
  }

  /** Lets the current pass finish, then stops. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    await this.#running;
    this.#running = undefined;
  }

  async #run(): Promise<void> {
    const { name, pass, idleMs, maxBackoffMs, logger } = this.#options;
    let failures = 0;
    while (!this.#stopped) {
      let delay: number;
      try {
        const more = await pass();
        if (failures > 0) logger.info({ loop: name, failures }, `${name} recovered`);
        failures = 0;
        delay = more ? 0 : idleMs;
      } catch (error) {
        if (failures === 0) logger.warn({ loop: name, err: error }, `${name} failed; retrying with backoff`);
        failures += 1;
        delay = Math.min(idleMs * 2 ** failures, maxBackoffMs);
      }
      if (delay > 0 && !this.#stopped) await this.#sleep(delay);
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
