// The test gateway's control routes (/test/), for tests and scripts: faults, the clock and the logs.
import type { GatewayOperation } from '@shop/platform';
import type { FaultRule } from './faults.ts';
import type { LoggedRequest } from './store.ts';

export class TestGatewayControl {
  readonly #url: string;
  readonly #apiKey: string;

  constructor(url: string, apiKey: string) {
    this.#url = url;
    this.#apiKey = apiKey;
  }

  /** Adds a fault rule; rules are tried in the order they were added. */
  async addFault(rule: FaultRule): Promise<void> {
    await this.#send('POST', '/test/faults', rule);
  }

  /** Sets the gateway's clock, which decides authorization expiry and when pending refunds settle. */
  async setClock(now: Date): Promise<void> {
    await this.#send('PUT', '/test/clock', { now: now.toISOString() });
  }

  /** Completes the customer's action (3-D Secure) on an authorization answered `requires_action`. */
  async completeAction(authorizationId: string): Promise<void> {
    await this.#send('POST', `/test/authorizations/${encodeURIComponent(authorizationId)}/complete-action`);
  }

  /** Every operation recorded, in order, as it stands now: what exactly-once assertions count. */
  async operations(): Promise<GatewayOperation[]> {
    return ((await this.#send('GET', '/test/operations')) as { operations: GatewayOperation[] }).operations;
  }

  /** Every request received, in order, with what became of it (executed, replayed, conflict, refused, dropped). */
  async requests(): Promise<LoggedRequest[]> {
    return ((await this.#send('GET', '/test/requests')) as { requests: LoggedRequest[] }).requests;
  }

  async #send(method: string, path: string, body?: object): Promise<unknown> {
    const response = await fetch(new URL(path, this.#url), {
      method,
      headers: { authorization: `Bearer ${this.#apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`test gateway ${method} ${path} answered ${response.status}: ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  }
}
