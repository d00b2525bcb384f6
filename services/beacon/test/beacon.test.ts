import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.ts';
import { accept, box, startBeaconSite, trackedPage, type BeaconSite, type ReceivedEvent } from './support/beacon-site.ts';
import { readUntil } from '../../../test/support/wait.ts';

let browser: Browser;
let context: BrowserContext;
let site: BeaconSite;
let page: Page;

beforeAll(async () => {
  [browser, site] = await Promise.all([launchChromium(), startBeaconSite()]);
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

beforeEach(async () => {
  site.respond = accept;
  // A context per test: a clock, once installed, stays for the whole context.
  context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  page = await context.newPage();
  // The page's clock stands still: its timers (the beacon's visibility timer, its batching, a Retry-After)
  // run only as far as a test moves it, so a view of 900 ms lasts 900 ms to the millisecond.
  await page.clock.install();
  await page.clock.pauseAt(Date.now() + 1_000);
});

afterEach(async () => {
  await context?.close();
});

/** Opens a page made of `body` and waits until the beacon runs and has seen what is visible. */
async function open(body: string, options: Record<string, unknown> = {}): Promise<string> {
  const url = site.page(trackedPage(body, options));
  await page.goto(url);
  await page.waitForFunction('window.ready === true');
  await inPage('scenario.rendered()');
  return url;
}

/** Runs `expression` in the page (a string: the tests are type-checked without the DOM library). */
const inPage = (expression: string): Promise<unknown> => page.evaluate(expression);

/** Moves the page's clock by `ms`, running the timers due meanwhile. */
const elapse = (ms: number): Promise<void> => page.clock.runFor(ms);

/** Shows the element at `top` for `ms` of the page's clock, then scrolls it away. */
async function showFor(top: number, ms: number): Promise<void> {
  await inPage(`scenario.show(${top})`);
  await elapse(ms);
  await inPage('scenario.hide()');
}

const ofType = (events: ReceivedEvent[], type: string): ReceivedEvent[] => events.filter((event) => event.event_type === type);

/** The page's events of `type` once there are at least `count`, or all of them after `timeoutMs`; its clock moves 100 ms a read. */
async function eventsOf(url: string, type: string, count: number, timeoutMs = 4_000): Promise<ReceivedEvent[]> {
  const read = async () => {
    await elapse(100);
    return ofType(site.eventsOf(url), type);
  };
  return readUntil(read, (events) => events.length >= count, { timeoutMs, intervalMs: 25 });
}

/** Everything the beacon will ever send for the page: the queue is flushed and every request it sent is answered. */
async function settled(url: string, type: string): Promise<ReceivedEvent[]> {
  await inPage('scenario.settle()');
  return ofType(site.eventsOf(url), type);
}

describe('impressions', () => {
  it('sends one when half of the element has been visible for 1 second without a break', async () => {
    const url = await open(box('banner', 2000, { id: 11 }));
    await showFor(2000, 1100);
    const [impression] = await eventsOf(url, 'impression', 1);
    expect(impression).toEqual({ event_type: 'impression', entity_type: 'banner', entity_id: '11', page_url: url });
    expect(await settled(url, 'impression')).toHaveLength(1);
    expect(site.requests.find((request) => request.events.includes(impression as ReceivedEvent))?.contentType).toBe('application/json');
  });

  it('sends none when the element is hidden again after 0.9 seconds', async () => {
    const url = await open(box('banner', 2000, { id: 12 }));
    await showFor(2000, 900);
    await elapse(1200);
    expect(await settled(url, 'impression')).toEqual([]);
  });

  it('sends none when two views add up to more than a second but neither lasts one', async () => {
    const url = await open(box('banner', 2000, { id: 23 }));
    await showFor(2000, 700);
    await elapse(60);
    await showFor(2000, 700);
    await elapse(1200);
    expect(await settled(url, 'impression')).toEqual([]);
  });

  it('sends only one when the element is scrolled away and back', async () => {
    const url = await open(box('banner', 2000, { id: 13 }));
    await showFor(2000, 1100);
    await elapse(200);
    await showFor(2000, 1300);
    await eventsOf(url, 'impression', 1);
    expect(await settled(url, 'impression')).toHaveLength(1);
  });

  it('sends none while only 40% of the element is visible, and one at 60%', async () => {
    const url = await open(box('banner', 2000, { id: 14 }));
    await inPage('scenario.reveal(2000, 40)');
    await elapse(1500);
    expect(await settled(url, 'impression')).toEqual([]);

    await inPage('scenario.reveal(2000, 60)');
    expect(await eventsOf(url, 'impression', 1)).toEqual([expect.objectContaining({ entity_id: '14' })]);
  });

  it('tracks elements added after the beacon started, also inside a new subtree', async () => {
    const url = await open('');
    await inPage(
      `document.body.insertAdjacentHTML('beforeend', '<section><div><div class="box" style="top: 100px" data-shop-entity-type="slide" data-shop-entity-id="15"></div></div></section>')`,
    );
    await inPage(`document.body.insertAdjacentHTML('beforeend', '${box('later', 300, { type: 'hero', id: 16 })}')`);
    const impressions = await eventsOf(url, 'impression', 2);
    expect(impressions.map((event) => `${event.entity_type}:${event.entity_id}`).sort()).toEqual(['hero:16', 'slide:15']);
  });

  it('counts an element again when it is given another entity', async () => {
    const url = await open(box('reused', 100, { id: 17 }));
    await eventsOf(url, 'impression', 1);
    await inPage(`document.getElementById('reused').setAttribute('data-shop-entity-id', '18')`);
    const impressions = await eventsOf(url, 'impression', 2);
    expect(impressions.map((event) => event.entity_id)).toEqual(['17', '18']);
  });

  it('ignores elements whose id is not a positive integer', async () => {
    const url = await open(box('bad', 100, { id: 'abc' }) + box('zero', 250, { id: 0 }) + box('good', 400, { id: 19 }));
    await eventsOf(url, 'impression', 1);
    expect((await settled(url, 'impression')).map((event) => event.entity_id)).toEqual(['19']);
  });

  it('sends the events of a refused batch again one by one, so one bad event does not lose the others', async () => {
    site.respond = (events) => ({ status: events.some((event) => event.entity_type === 'unknown') ? 400 : 202 });
    const url = await open(box('bad', 100, { type: 'unknown', id: 20 }) + box('good', 250, { id: 21 }));
    await elapse(1300);
    expect((await eventsOf(url, 'impression', 1)).map((event) => event.entity_id)).toEqual(['21']);
    const requests = site.requests.filter((request) => request.events.some((event) => event.page_url === url));
    expect(requests.map((request) => `${request.events.length} ${request.status}`).sort()).toEqual(['1 202', '1 400', '2 400']);
  });

  it('sends the queued impressions when the page is left', async () => {
    const next = site.page('<p>next</p>');
    const url = await open(box('banner', 100, { id: 24 }), { batchMs: 60_000 });
    await elapse(1300);
    expect(ofType(site.eventsOf(url), 'impression')).toEqual([]);
    await page.goto(next);
    expect(await eventsOf(url, 'impression', 1)).toEqual([expect.objectContaining({ entity_id: '24' })]);
  });

  it('tries a batch again once after Retry-After when the api is busy', async () => {
    let busy = true;
    site.respond = () => {
      const answer = busy ? { status: 503, headers: { 'retry-after': '1' } } : { status: 202 };
      busy = false;
      return answer;
    };
    const url = await open(box('banner', 100, { id: 22 }));
    expect(await eventsOf(url, 'impression', 1, 5_000)).toEqual([expect.objectContaining({ entity_id: '22' })]);
  });
});

describe('clicks', () => {
  it('sends one click per click on a tracked element or inside it', async () => {
    const url = await open(box('banner', 100, { id: 31 }, 'data-shop-channel-id="5"'));
    await page.click('#banner');
    const [click] = await eventsOf(url, 'click', 1);
    expect(click).toEqual({ event_type: 'click', entity_type: 'banner', entity_id: '31', page_url: url, channel_id: '5' });
    expect(await settled(url, 'click')).toHaveLength(1);
  });

  it('sends a click on a link even when the page goes away at once', async () => {
    const next = site.page('<p>next</p>');
    const url = await open(
      `<a id="link" href="${next}" class="box" style="top: 100px" data-shop-entity-type="hero" data-shop-entity-id="32">go</a>`,
    );
    await Promise.all([page.waitForURL(next), page.click('#link')]);
    expect(await eventsOf(url, 'click', 1)).toEqual([expect.objectContaining({ entity_type: 'hero', entity_id: '32' })]);
  });

  it('reports the referrer and sends text/plain to an endpoint on another origin', async () => {
    const endpoint = `${site.url.replace('127.0.0.1', 'localhost')}/api/track`;
    const first = await open(`<a id="link" class="box" style="top: 100px" href="about:blank">x</a>`);
    const url = site.page(trackedPage(box('banner', 100, { id: 33 }), { endpoint }));
    await page.goto(url, { referer: first });
    await page.waitForFunction('window.ready === true');
    await page.click('#banner');
    const [click] = await eventsOf(url, 'click', 1);
    expect(click).toMatchObject({ entity_id: '33', referrer_url: first });
    expect(site.requests.find((request) => request.events.includes(click as ReceivedEvent))?.contentType).toBe('text/plain;charset=UTF-8');
  });
});
