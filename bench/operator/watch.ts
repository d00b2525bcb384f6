// Collections followed by LIST then WATCH (again when the server ends it), the latest object of each kept, and waits on them that end
// at a deadline with what they were waiting for.
import type { TestCluster } from '../../operator/test/support/test-cluster.ts';
import { expectStatus } from '../../operator/test/support/test-cluster.ts';

export interface Watched {
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    generation?: number;
    resourceVersion: string;
    annotations?: Record<string, string>;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: Watched;
}

export interface WaitOptions {
  readonly timeoutMs: number;
  /** What is waited for, for the error on the deadline. */
  readonly what: string;
  /** The operator's failure (or another one): the wait ends at once instead of at its deadline. */
  readonly failure: () => Error | undefined;
}

export interface Tracker {
  /** The latest object by `namespace/name`; gone once deleted. */
  readonly latest: ReadonlyMap<string, Watched>;
  /** When each object was first seen, and first seen `done` (the tracker's own test), by `namespace/name` (performance.now()). */
  readonly seenAt: ReadonlyMap<string, number>;
  readonly doneAt: ReadonlyMap<string, number>;
  /**
   * Resolves with when each key was first seen passing `test` (from now on: an object passing it already
   * counts from now); rejects on the deadline naming the keys that did not, with `describe` of each.
   */
  until(keys: readonly string[], test: (object: Watched) => boolean, options: WaitOptions): Promise<Map<string, number>>;
  failure(): Error | undefined;
  stop(): Promise<void>;
}

export const keyOf = (object: { metadata: { namespace: string; name: string } }): string =>
  `${object.metadata.namespace}/${object.metadata.name}`;

/** Resolves once the watch is established (the server answered its headers), so nothing created later is missed. */
export async function track(
  cluster: TestCluster,
  path: string,
  options: { labelSelector?: string; done?: (object: Watched) => boolean; describe: (object: Watched | undefined) => string },
): Promise<Tracker> {
  const latest = new Map<string, Watched>();
  const seenAt = new Map<string, number>();
  const doneAt = new Map<string, number>();
  const waiters = new Set<(key: string, object: Watched, at: number) => void>();
  /** Ends each wait under way: stop() rejects them, so that none keeps its timers (and the process) alive. */
  const finishers = new Set<(error: Error) => void>();
  const onEvent = (event: WatchEvent): void => {
    if (event.type === 'BOOKMARK') return;
    const key = keyOf(event.object);
    const at = performance.now();
    if (event.type === 'DELETED') {
      latest.delete(key);
      return;
    }
    latest.set(key, event.object);
    if (!seenAt.has(key)) seenAt.set(key, at);
    if (options.done?.(event.object) && !doneAt.has(key)) doneAt.set(key, at);
    for (const waiter of waiters) waiter(key, event.object, at);
  };

  const query = new URLSearchParams(options.labelSelector ? { labelSelector: options.labelSelector } : {});
  const abort = new AbortController();
  let resourceVersion = '';
  /** LIST, and forget what it no longer holds (deleted while no watch was open). */
  const list = async (): Promise<void> => {
    let reply = await cluster.kube<{ metadata: { resourceVersion: string }; items: Watched[] }>('GET', `${path}?${query}`);
    // A CRD established a moment ago may still answer 429 "storage is (re)initializing".
    for (let attempt = 1; reply.status === 429 && attempt < 30; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      reply = await cluster.kube('GET', `${path}?${query}`);
    }
    expectStatus(reply, 200);
    const listed = new Set(reply.body.items.map(keyOf));
    for (const key of latest.keys()) if (!listed.has(key)) latest.delete(key);
    for (const object of reply.body.items) onEvent({ type: 'ADDED', object });
    resourceVersion = reply.body.metadata.resourceVersion;
  };
  /** WATCH from `resourceVersion`; undefined when it is too old (410 Gone). */
  const open = async (): Promise<ReadableStream<Uint8Array> | undefined> => {
    const watch = new URLSearchParams(query);
    watch.set('watch', 'true');
    watch.set('allowWatchBookmarks', 'true');
    watch.set('resourceVersion', resourceVersion);
    const response = await fetch(new URL(`${path}?${watch}`, cluster.server.url), {
      headers: { authorization: `Bearer ${cluster.server.token}`, accept: 'application/json' },
      signal: abort.signal,
    });
    if (response.status === 410) return undefined;
    if (!response.ok || !response.body) throw new Error(`WATCH ${path}: HTTP ${response.status}`);
    return response.body;
  };
  /** Reads the events until the server ends the watch: 'expired' when it said the resourceVersion is too old. */
  const read = async (body: ReadableStream<Uint8Array>): Promise<'ended' | 'expired'> => {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of body) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.trim() === '') continue;
        const event = JSON.parse(line) as WatchEvent;
        if (event.type === 'ERROR') {
          if ((event.object as unknown as { code?: number }).code === 410) return 'expired';
          throw new Error(`WATCH ${path}: ${JSON.stringify(event.object)}`);
        }
        resourceVersion = event.object.metadata.resourceVersion;
        onEvent(event);
      }
    }
    return 'ended';
  };

  await list();
  let body = await open();
  if (!body) throw new Error(`WATCH ${path}: the resourceVersion of the LIST just made is gone`);
  let failure: Error | undefined;
  // The API server ends a watch after a while: it is opened again from the last event, or from a new LIST.
  const reading = (async () => {
    try {
      while (!abort.signal.aborted) {
        const ended = body ? await read(body) : 'expired';
        if (abort.signal.aborted) return;
        if (ended === 'expired') await list();
        body = await open();
      }
    } catch (error) {
      if (!abort.signal.aborted) failure = error instanceof Error ? error : new Error(String(error));
    }
  })();

  const until: Tracker['until'] = (keys, test, { timeoutMs, what, failure: otherFailure }) =>
    new Promise((resolve, reject) => {
      const wanted = new Set(keys);
      const met = new Map<string, number>();
      const finish = (error?: Error): void => {
        clearInterval(checking);
        clearTimeout(deadline);
        waiters.delete(waiter);
        finishers.delete(finish);
        if (error) reject(error);
        else resolve(met);
      };
      const waiter = (key: string, object: Watched, at: number): void => {
        if (!wanted.has(key) || met.has(key) || !test(object)) return;
        met.set(key, at);
        if (met.size === wanted.size) finish();
      };
      const checking = setInterval(() => {
        const error = otherFailure() ?? failure;
        if (error) finish(error);
      }, 100);
      const deadline = setTimeout(() => {
        const missing = keys.filter((key) => !met.has(key));
        const shown = missing.slice(0, 10).map((key) => `${key}: ${options.describe(latest.get(key))}`);
        finish(
          new Error(
            `timed out after ${timeoutMs / 1000} s waiting for ${what}: ${missing.length} of ${keys.length} not there; ${shown.join('; ')}${missing.length > shown.length ? '; ...' : ''}`,
          ),
        );
      }, timeoutMs);
      waiters.add(waiter);
      finishers.add(finish);
      if (wanted.size === 0) finish();
      for (const key of keys) {
        const object = latest.get(key);
        if (object) waiter(key, object, performance.now());
      }
    });

  return {
    latest,
    seenAt,
    doneAt,
    until,
    failure: () => failure,
    stop: async () => {
      abort.abort();
      for (const finish of finishers) finish(new Error(`the watch of ${path} was stopped`));
      await reading;
    },
  };
}
