// The command line and environment of `npm run dashboards:preview`; a bad value stops it with one line
// naming the flag or variable.
import { existsSync } from 'node:fs';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { ConfigError } from '@shop/runtime';

const DEFAULT_OUT_DIR = '.data/dashboard-previews';
const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

export interface PreviewCliOptions {
  readonly prometheusUrl: string;
  readonly chromiumPath: string;
  readonly outDir: string;
  readonly rangeSeconds: number;
  readonly scrapeIntervalSeconds: number;
  /** Variable values picked with `--var name=value`. */
  readonly picked: Readonly<Record<string, string>>;
  /** Dashboard uids to preview; empty for all of them. */
  readonly dashboards: readonly string[];
}

const DURATION_UNITS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `90s`, `15m`, `3h`, `1d` in seconds; undefined for anything else. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+)([smhd])$/.exec(text);
  if (match === null) return undefined;
  const seconds = Number(match[1]) * (DURATION_UNITS[match[2] ?? ''] ?? 0);
  return seconds > 0 ? seconds : undefined;
}

function duration(flag: string, text: string): number {
  const seconds = parseDuration(text);
  if (seconds === undefined) throw new ConfigError([`${flag} must be a duration such as 90s, 15m or 3h, not "${text}"`]);
  return seconds;
}

function prometheusUrl(env: NodeJS.ProcessEnv): string {
  const url = env.PROMETHEUS_URL;
  if (url === undefined || url === '')
    throw new ConfigError(['PROMETHEUS_URL is not set: the Prometheus to query, e.g. http://127.0.0.1:9090']);
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw new ConfigError([`PROMETHEUS_URL must be an http(s) URL, not "${url}"`]);
  return url;
}

function chromiumPath(env: NodeJS.ProcessEnv): string {
  const path = env.CHROMIUM_PATH || DEFAULT_CHROMIUM_PATH;
  if (!existsSync(path))
    throw new ConfigError([
      `CHROMIUM_PATH ${path} does not exist: install Chromium (Debian: apt-get install chromium) or point CHROMIUM_PATH at one`,
    ]);
  return path;
}

function pickedVariables(assignments: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    assignments.map((assignment) => {
      const match = /^(\w+)=(.*)$/.exec(assignment);
      if (match === null) throw new ConfigError([`--var must be name=value, e.g. --var namespace=shop-prod, not "${assignment}"`]);
      return [match[1], match[2]];
    }),
  );
}

const FLAGS = {
  since: { type: 'string', default: '15m' },
  'scrape-interval': { type: 'string', default: '15s' },
  out: { type: 'string', default: DEFAULT_OUT_DIR },
  var: { type: 'string', multiple: true, default: [] },
  dashboard: { type: 'string', multiple: true, default: [] },
} satisfies ParseArgsOptionsConfig;

function flags(args: readonly string[]) {
  try {
    return parseArgs({ args: [...args], options: FLAGS }).values;
  } catch (error) {
    // An unknown flag, a flag without its value, a positional argument.
    throw new ConfigError([error instanceof Error ? error.message : String(error)]);
  }
}

export function parsePreviewOptions(args: readonly string[], env: NodeJS.ProcessEnv): PreviewCliOptions {
  const values = flags(args);
  return {
    prometheusUrl: prometheusUrl(env),
    chromiumPath: chromiumPath(env),
    outDir: values.out,
    rangeSeconds: duration('--since', values.since),
    scrapeIntervalSeconds: duration('--scrape-interval', values['scrape-interval']),
    picked: pickedVariables(values.var),
    dashboards: values.dashboard,
  };
}
