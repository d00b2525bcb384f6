// @ts-check
// The storefront beacon: impressions and clicks of elements marked with data-shop-entity-type and
// data-shop-entity-id, posted to the storefront's POST /api/track (which relays them to the api).
// A plain ES module for browsers, written by hand: no build step, no dependencies.
/* global window, document, location, IntersectionObserver, MutationObserver, Element */

const TYPE_ATTRIBUTE = 'data-shop-entity-type';
const ID_ATTRIBUTE = 'data-shop-entity-id';
const CHANNEL_ATTRIBUTE = 'data-shop-channel-id';
const SELECTOR = `[${TYPE_ATTRIBUTE}][${ID_ATTRIBUTE}]`;
/** The api's id format: a positive integer as a decimal string. */
const ID_PATTERN = /^[1-9][0-9]{0,18}$/;
/** The most events one POST /track may carry. */
const MAX_BATCH_EVENTS = 50;
/** Keepalive requests share a 64 KiB budget per page: bigger batches are split. */
const MAX_BODY_CHARS = 32 * 1024;
const MAX_RETRY_AFTER_SECONDS = 60;

/**
 * @typedef {object} BeaconEvent
 * @property {'impression' | 'click'} event_type
 * @property {string} entity_type
 * @property {string} entity_id
 * @property {string} page_url
 * @property {string} [referrer_url]
 * @property {string} [channel_id]
 */

/**
 * @typedef {object} BeaconOptions
 * @property {string} [endpoint] Where events are posted. Default `/api/track`.
 * @property {number} [visibleMs] How long an element must stay visible, continuously. Default 1000.
 * @property {number} [threshold] Which share of the element must be visible. Default 0.5.
 * @property {number} [batchMs] How long impressions wait for company before they are sent. Default 200.
 * @property {string | number} [channelId] The channel of every event, unless the element (or an
 *   ancestor) names one with data-shop-channel-id.
 * @property {Document | Element} [root] The part of the page to watch. Default: the whole document.
 */

/**
 * @typedef {object} Beacon
 * @property {() => void} flush Sends the queued events now.
 * @property {() => void} stop Sends the queued events and stops watching.
 */

/**
 * @typedef {object} Watch
 * @property {string} key The entity the element is watched for, `type:id`.
 * @property {boolean} visible Whether the observer last saw the threshold reached.
 * @property {ReturnType<typeof setTimeout> | undefined} timer Running while the element is visible.
 */

/** @param {Element} element */
function entityOf(element) {
  const type = (element.getAttribute(TYPE_ATTRIBUTE) ?? '').trim();
  const id = (element.getAttribute(ID_ATTRIBUTE) ?? '').trim();
  if (type === '' || !ID_PATTERN.test(id)) return undefined;
  return { type, id, key: `${type}:${id}` };
}

/**
 * The share of the element inside the viewport, from its box alone. Used to confirm, when the second
 * is up, that the element is still visible: an observer callback reporting it hidden may be a frame late.
 * @param {Element} element
 */
function viewportRatio(element) {
  const box = element.getBoundingClientRect();
  const area = box.width * box.height;
  if (area === 0) return 0;
  const width = Math.min(box.right, document.documentElement.clientWidth || window.innerWidth) - Math.max(box.left, 0);
  const height = Math.min(box.bottom, document.documentElement.clientHeight || window.innerHeight) - Math.max(box.top, 0);
  return width <= 0 || height <= 0 ? 0 : (width * height) / area;
}

/** @param {string | null} value */
function retryAfterMs(value) {
  const seconds = Number(value);
  const bounded = Number.isFinite(seconds) && seconds >= 1 ? Math.min(seconds, MAX_RETRY_AFTER_SECONDS) : 5;
  return bounded * 1000;
}

/**
 * Starts watching the page: an impression once at least `threshold` of an element has been visible
 * for `visibleMs` without a break (once per element and entity per page load), and a click for every
 * click on it. Elements added or changed later are watched too.
 * @param {BeaconOptions} [options]
 * @returns {Beacon}
 */
export function startBeacon(options = {}) {
  const endpoint = options.endpoint ?? '/api/track';
  const visibleMs = options.visibleMs ?? 1000;
  const threshold = options.threshold ?? 0.5;
  const batchMs = options.batchMs ?? 200;
  const root = options.root ?? document;
  const defaultChannel = options.channelId === undefined ? undefined : String(options.channelId);
  const sameOrigin = new URL(endpoint, location.href).origin === location.origin;

  /** @type {Map<Element, Watch>} */
  const watches = new Map();
  /** The entity each element has been counted for. @type {WeakMap<Element, string>} */
  const counted = new WeakMap();
  /** @type {BeaconEvent[]} */
  let queue = [];
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let flushTimer;
  /** @type {Set<ReturnType<typeof setTimeout>>} */
  const retries = new Set();

  /**
   * @param {'impression' | 'click'} eventType
   * @param {Element} element
   * @param {{ type: string, id: string }} entity
   * @returns {BeaconEvent}
   */
  function eventOf(eventType, element, entity) {
    /** @type {BeaconEvent} */
    const event = { event_type: eventType, entity_type: entity.type, entity_id: entity.id, page_url: location.href };
    if (document.referrer !== '') event.referrer_url = document.referrer;
    const channel = element.closest(`[${CHANNEL_ATTRIBUTE}]`)?.getAttribute(CHANNEL_ATTRIBUTE)?.trim() ?? defaultChannel;
    if (channel !== undefined && ID_PATTERN.test(channel)) event.channel_id = channel;
    return event;
  }

  /** @param {BeaconEvent} event */
  function enqueue(event) {
    queue.push(event);
    if (queue.length >= MAX_BATCH_EVENTS) flush();
    else flushTimer ??= setTimeout(flush, batchMs);
  }

  function flush() {
    if (flushTimer !== undefined) clearTimeout(flushTimer);
    flushTimer = undefined;
    const events = queue;
    queue = [];
    for (let start = 0; start < events.length; start += MAX_BATCH_EVENTS) send(events.slice(start, start + MAX_BATCH_EVENTS), false);
  }

  /**
   * Posts the events with fetch keepalive, which outlives the page; navigator.sendBeacon where fetch
   * cannot. A refused batch is sent again one event at a time (the api refuses a batch for one bad
   * event); a busy api (429, 503) gets one more try after its Retry-After.
   * @param {BeaconEvent[]} events
   * @param {boolean} retried
   */
  function send(events, retried) {
    const body = JSON.stringify(events);
    if (body.length > MAX_BODY_CHARS && events.length > 1) {
      const half = Math.ceil(events.length / 2);
      send(events.slice(0, half), retried);
      send(events.slice(half), retried);
      return;
    }
    // text/plain is a "simple" content type: a cross-origin endpoint gets no preflight.
    const contentType = sameOrigin ? 'application/json' : 'text/plain;charset=UTF-8';
    /** @type {Promise<Response>} */
    let request;
    try {
      request = fetch(endpoint, {
        method: 'POST',
        body,
        keepalive: true,
        credentials: sameOrigin ? 'same-origin' : 'include',
        headers: { 'content-type': contentType },
      });
    } catch {
      navigator.sendBeacon?.(endpoint, new Blob([body], { type: 'text/plain;charset=UTF-8' }));
      return;
    }
    request.then(
      (response) => {
        if (response.status === 400 && events.length > 1) {
          for (const event of events) send([event], true);
        } else if ((response.status === 429 || response.status === 503) && !retried) {
          const timer = setTimeout(
            () => {
              retries.delete(timer);
              send(events, true);
            },
            retryAfterMs(response.headers.get('retry-after')),
          );
          retries.add(timer);
        }
      },
      // A network error: the events are dropped rather than risk sending them twice.
      () => undefined,
    );
  }

  /** @param {Element} element @param {Watch} watch */
  function arm(element, watch) {
    if (watch.timer !== undefined || document.visibilityState !== 'visible') return;
    watch.timer = setTimeout(() => {
      watch.timer = undefined;
      if (!element.isConnected || !watch.visible || viewportRatio(element) < threshold) return;
      const entity = entityOf(element);
      if (entity === undefined || entity.key !== watch.key) return;
      counted.set(element, entity.key);
      unwatch(element);
      enqueue(eventOf('impression', element, entity));
    }, visibleMs);
  }

  /** @param {Watch} watch */
  function disarm(watch) {
    if (watch.timer !== undefined) clearTimeout(watch.timer);
    watch.timer = undefined;
  }

  const intersections = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        const watch = watches.get(entry.target);
        if (watch === undefined) continue;
        watch.visible = entry.isIntersecting && entry.intersectionRatio >= threshold;
        if (watch.visible) arm(entry.target, watch);
        else disarm(watch);
      }
    },
    { threshold },
  );

  /** @param {Element} element */
  function watch(element) {
    const entity = entityOf(element);
    const current = watches.get(element);
    if (current !== undefined) {
      if (entity !== undefined && current.key === entity.key) return;
      unwatch(element);
    }
    if (entity === undefined || counted.get(element) === entity.key) return;
    watches.set(element, { key: entity.key, visible: false, timer: undefined });
    intersections.observe(element);
  }

  /** @param {Element} element */
  function unwatch(element) {
    const current = watches.get(element);
    if (current === undefined) return;
    disarm(current);
    watches.delete(element);
    intersections.unobserve(element);
  }

  /** @param {Node} node */
  function watchTree(node) {
    if (!(node instanceof Element)) return;
    if (node.matches(SELECTOR)) watch(node);
    for (const element of node.querySelectorAll(SELECTOR)) watch(element);
  }

  const mutations = new MutationObserver((records) => {
    let removed = false;
    for (const record of records) {
      if (record.type === 'attributes') {
        const target = /** @type {Element} */ (record.target);
        if (target.matches(SELECTOR)) watch(target);
        else unwatch(target);
      } else {
        for (const node of record.addedNodes) watchTree(node);
        removed ||= record.removedNodes.length > 0;
      }
    }
    if (removed) {
      for (const element of [...watches.keys()]) if (!element.isConnected) unwatch(element);
    }
  });

  /** @param {Event} event */
  function onClick(event) {
    if (event.type === 'auxclick' && /** @type {MouseEvent} */ (event).button !== 1) return;
    const target = event.target instanceof Element ? event.target.closest(SELECTOR) : null;
    if (target === null || !root.contains(target)) return;
    const entity = entityOf(target);
    if (entity === undefined) return;
    queue.push(eventOf('click', target, entity));
    // Now: a click often leaves the page.
    flush();
  }

  function onVisibilityChange() {
    if (document.visibilityState === 'visible') {
      for (const [element, current] of watches) if (current.visible) arm(element, current);
      return;
    }
    // A hidden page shows nothing: the second starts again when it comes back. It may never come back.
    for (const current of watches.values()) disarm(current);
    flush();
  }

  mutations.observe(root, { childList: true, subtree: true, attributes: true, attributeFilter: [TYPE_ATTRIBUTE, ID_ATTRIBUTE] });
  root.addEventListener('click', onClick, true);
  root.addEventListener('auxclick', onClick, true);
  document.addEventListener('visibilitychange', onVisibilityChange);
  window.addEventListener('pagehide', flush);
  watchTree(root instanceof Element ? root : document.documentElement);

  return {
    flush,
    stop() {
      mutations.disconnect();
      intersections.disconnect();
      for (const current of watches.values()) disarm(current);
      watches.clear();
      for (const timer of retries) clearTimeout(timer);
      retries.clear();
      root.removeEventListener('click', onClick, true);
      root.removeEventListener('auxclick', onClick, true);
      document.removeEventListener('visibilitychange', onVisibilityChange);
      window.removeEventListener('pagehide', flush);
      flush();
    },
  };
}
