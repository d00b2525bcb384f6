import { AsyncLocalStorage } from 'node:async_hooks';
import type { KubeConfig } from '@kubernetes/client-node';

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** An API request that got no complete answer in time (client-node's requests have no timeout of their own). */
export class RequestTimeoutError extends Error {
  override readonly name = 'RequestTimeoutError';
}

/** The cancellation of the work under way (a reconcile pass), seen by every request it makes. */
const cancellation = new AsyncLocalStorage<AbortSignal>();

/** Runs `work` so that each API request it makes, directly or through awaited calls, is aborted with `signal`. */
export function cancellableBy<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  return cancellation.run(signal, work);
}

/**
 * Gives every request made through `kubeConfig` (the API clients and informers' lists; a Watch uses
 * its own inactivity timeout) a deadline of `timeoutMs` for the whole answer, body included, and
 * aborts it with the cancellation of the pass that made it. A request of a cancelled pass fails
 * before it is sent.
 */
export function limitRequestTime(kubeConfig: KubeConfig, timeoutMs: number): void {
  const authenticate = kubeConfig.applySecurityAuthentication.bind(kubeConfig);
  kubeConfig.applySecurityAuthentication = async (context) => {
    await authenticate(context);
    const cancelled = cancellation.getStore();
    cancelled?.throwIfAborted();
    const timeout = new AbortController();
    const request = `${context.getHttpMethod()} ${new URL(context.getUrl()).pathname}`;
    setTimeout(() => timeout.abort(new RequestTimeoutError(`${request}: no answer within ${timeoutMs / 1000} s`)), timeoutMs).unref();
    context.setSignal(AbortSignal.any([timeout.signal, ...(cancelled ? [cancelled] : [])]));
  };
}
