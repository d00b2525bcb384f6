// Behind `npm run dashboards:preview`: draws every dashboard of dashboards/json from a real Prometheus,
// as an HTML page and a PNG screenshot of it per dashboard (dashboards/README.md § Previews).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, runCommand } from '@shop/runtime';
import { readDashboards, type DashboardJson } from '../dashboard-json.ts';
import { parsePreviewOptions, type PreviewCliOptions } from './options.ts';
import { previewDashboard } from './preview-dashboard.ts';
import { PrometheusApi } from './prometheus-api.ts';
import { writeScreenshots, type Screenshot } from './screenshot.ts';
import { NO_VALUE } from './variables.ts';

function chosen(dashboards: readonly DashboardJson[], uids: readonly string[]): readonly DashboardJson[] {
  if (uids.length === 0) return dashboards;
  const known = dashboards.map((dashboard) => dashboard.uid);
  const unknown = uids.filter((uid) => !known.includes(uid));
  if (unknown.length > 0) throw new ConfigError([`--dashboard ${unknown.join(', ')} is not a dashboard (known: ${known.join(', ')})`]);
  return dashboards.filter((dashboard) => uids.includes(dashboard.uid));
}

async function preview(options: PreviewCliOptions): Promise<number> {
  const dashboards = chosen(await readDashboards(), options.dashboards);
  const prometheus = new PrometheusApi(options.prometheusUrl);
  await prometheus.checkReachable();
  await mkdir(options.outDir, { recursive: true });
  const end = Math.floor(Date.now() / 1000);
  const screenshots: Screenshot[] = [];
  const withoutData: string[] = [];
  for (const dashboard of dashboards) {
    const result = await previewDashboard(dashboard, {
      prometheus,
      picked: options.picked,
      end,
      rangeSeconds: options.rangeSeconds,
      scrapeIntervalSeconds: options.scrapeIntervalSeconds,
    });
    const file = join(options.outDir, dashboard.uid);
    await writeFile(`${file}.html`, result.html);
    screenshots.push({ html: result.html, file: `${file}.png` });
    const empty = result.panels.filter((panel) => !panel.hasData).map((panel) => `${dashboard.uid} › ${panel.title}`);
    withoutData.push(...empty);
    const variables = Object.entries(result.variables).map(([name, value]) => `${name}=${value === NO_VALUE ? '(none)' : value}`);
    console.log(
      `${dashboard.uid}: ${result.panels.length - empty.length}/${result.panels.length} panels with data (${variables.join(', ')}) -> ${file}.html`,
    );
  }
  await writeScreenshots(options.chromiumPath, screenshots);
  console.log(`wrote ${screenshots.length} PNG screenshots to ${options.outDir}`);
  console.log(`${withoutData.length} panels with no data${withoutData.map((panel) => `\n  ${panel}`).join('')}`);
  return 0;
}

await runCommand(async () => preview(parsePreviewOptions(process.argv.slice(2), process.env)));
