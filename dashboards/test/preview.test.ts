// Issue 14 part 6: `npm run dashboards:preview` draws every dashboard from a real Prometheus scraping the
// live Shop while storefront traffic goes through the api: an HTML page and a PNG per dashboard.
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../test/infra/proc.ts';
import { eventually } from '../../test/support/wait.ts';
import { readDashboards, type DashboardJson } from '../src/dashboard-json.ts';
import { PAGE_WIDTH } from '../src/preview/page.ts';
import { SHOP_LABELS } from './support/live/live-shop.ts';
import { startScrapedShop, type ScrapedShop } from './support/live/scraped-shop.ts';
import { ShopApiClient } from './support/live/shop-api-client.ts';
import { startStorefrontLoad, type RunningLoad } from './support/live/storefront-load.ts';

const CLI = fileURLToPath(new URL('../src/preview/cli.ts', import.meta.url));
/** `RECORD_DASHBOARD_PREVIEW=1` also copies the API dashboard's PNG here (dashboards/README.md § Previews). */
const DOCS_IMAGE = fileURLToPath(new URL('../../docs/images/api-dashboard-preview.png', import.meta.url));
const VISITORS = 4;
const RECORD = process.env.RECORD_DASHBOARD_PREVIEW === '1';
/** Scrapes of the api under load before the preview is taken: enough for a line, or for the docs a few minutes of them. */
const SCRAPES_UNDER_LOAD = RECORD ? 180 : 15;
const SHOP_SELECTOR = `namespace="${SHOP_LABELS.namespace}", shop="${SHOP_LABELS.shop}"`;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the command as `npm run dashboards:preview` does; resolves with its exit code and output, never rejects. */
function preview(args: readonly string[], env: Record<string, string>): Promise<CliRun> {
  return promisify(execFile)(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: CliRun) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

/** The panel sections of a preview page, by title: what each panel's body holds. */
function panelBodies(html: string): Map<string, string> {
  const sections = html.split('<section class="panel"').slice(1);
  return new Map(sections.map((section) => [/data-title="([^"]*)"/.exec(section)?.[1] ?? '', section]));
}

/** Lines ECharts drew through at least `points` points: series, not axes or threshold lines. */
function drawnLines(svg: string, points: number): string[] {
  return [...svg.matchAll(/<path d="(M[^"]*)"[^>]*fill="none"/g)]
    .map((match) => match[1] ?? '')
    .filter((d) => (d.match(/L/g) ?? []).length >= points - 1);
}

describe('dashboards:preview on a real Prometheus scraping the Shop under storefront load', () => {
  let scraped: ScrapedShop;
  let load: RunningLoad | undefined;
  let outDir: string;
  let dashboards: DashboardJson[];
  let loadStartedAt: number;

  beforeAll(async () => {
    dashboards = await readDashboards();
    outDir = await mkdtemp(join(tmpdir(), 'shop-dashboard-previews-'));
    scraped = await startScrapedShop();
    loadStartedAt = Date.now();
    load = startStorefrontLoad(new ShopApiClient(scraped.shop.apiUrl), VISITORS);
  }, 120_000);

  afterAll(async () => {
    await load?.stop();
    await scraped?.close();
    if (outDir !== undefined) await rm(outDir, { recursive: true, force: true });
  });

  it(
    'writes an HTML page and a PNG per dashboard, with every API panel drawn from its series',
    async () => {
      // The GraphQL route's counter is born with the load's first request: one sample per scrape since.
      const scrapes = async () =>
        Number(
          (await scraped.prometheus.query(`max(count_over_time(http_requests_total{${SHOP_SELECTOR}, route="/graphql"}[1h]))`))[0]?.value ??
            0,
        );
      await eventually(async () => expect(await scrapes()).toBeGreaterThanOrEqual(SCRAPES_UNDER_LOAD), {
        timeoutMs: (SCRAPES_UNDER_LOAD + 30) * 1000,
        intervalMs: 1_000,
      });
      // From just before the load: the lines start where the traffic did.
      const since = `${Math.ceil((Date.now() - loadStartedAt) / 1000) + 5}s`;

      const run = await preview(['--since', since, '--scrape-interval', '1s', '--out', outDir], { PROMETHEUS_URL: scraped.prometheus.url });
      console.log(run.stdout);

      expect(run).toMatchObject({ code: 0, stderr: '' });
      const api = dashboards.find((dashboard) => dashboard.uid === 'shop-api');
      expect(run.stdout).toContain(
        `shop-api: ${api?.panels.length}/${api?.panels.length} panels with data (namespace=${SHOP_LABELS.namespace}, shop=${SHOP_LABELS.shop}) -> `,
      );
      const uids = dashboards.map((dashboard) => dashboard.uid).sort();
      expect((await readdir(outDir)).sort()).toEqual(uids.flatMap((uid) => [`${uid}.html`, `${uid}.png`]));

      const bodies = panelBodies(await readFile(join(outDir, 'shop-api.html'), 'utf8'));
      expect([...bodies.keys()]).toEqual(api?.panels.map((panel) => panel.title));
      for (const panel of api?.panels ?? []) {
        const body = bodies.get(panel.title) ?? '';
        if (panel.type === 'stat') expect(body, panel.title).toMatch(/class="stat-value" style="color:#73BF69">\d/);
        else expect(drawnLines(body, 5), panel.title).not.toEqual([]);
      }
      // The 1% line of ApiHighErrorRate, dashed red.
      expect(bodies.get('Error rate by status')).toMatch(/<path d="M[^"]*"[^>]*stroke="#F2495C"[^>]*stroke-dasharray/);

      // Every panel said "No data" on its page is counted in the summary, and none more.
      const pages = await Promise.all(uids.map((uid) => readFile(join(outDir, `${uid}.html`), 'utf8')));
      const noData = pages.reduce((count, page) => count + [...page.matchAll(/<div class="no-data">No data<\/div>/g)].length, 0);
      expect(run.stdout).toMatch(new RegExp(`^${noData} panels with no data`, 'm'));

      const png = await readFile(join(outDir, 'shop-api.png'));
      expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
      expect(png.toString('ascii', 12, 16)).toBe('IHDR');
      expect(png.readUInt32BE(16)).toBe(PAGE_WIDTH);
      // Three rows of panels, 9 grid rows of 30 px each, under the header.
      expect(png.readUInt32BE(20)).toBeGreaterThan(3 * 9 * 30);
      if (RECORD) await copyFile(join(outDir, 'shop-api.png'), DOCS_IMAGE);
    },
    (SCRAPES_UNDER_LOAD + 90) * 1000,
  );
});

describe('dashboards:preview without a Prometheus', () => {
  it('stops with one line naming PROMETHEUS_URL when nothing answers there', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const run = await preview([], { PROMETHEUS_URL: url });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^error: PROMETHEUS_URL ${url} does not answer as Prometheus: [^\\n]+\\n$`));
  });

  it('stops with one line when PROMETHEUS_URL is not set', async () => {
    const run = await preview([], {});
    expect(run).toMatchObject({
      code: 78,
      stderr: 'config error: PROMETHEUS_URL is not set: the Prometheus to query, e.g. http://127.0.0.1:9090\n',
    });
  });
});
