// The real Helm CLI for the chart tests, with cache, config and data homes of their own (not ~/.cache/helm).
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { helmBinary } from '../../../test/infra/kubernetes.ts';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');
export const OPERATOR_CHART = path.join(REPO_ROOT, 'charts/shop-operator');
export const SHOP_CHART = path.join(REPO_ROOT, 'charts/shop');

/** A Kubernetes object as `helm template` renders it. */
export interface RenderedObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

export interface HelmResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

// One fixed place for every run, so nothing is left behind per run; these tests add no repositories.
const home = path.join(tmpdir(), 'shop-charts-helm');
const helmEnv = {
  ...process.env,
  HELM_CACHE_HOME: path.join(home, 'cache'),
  HELM_CONFIG_HOME: path.join(home, 'config'),
  HELM_DATA_HOME: path.join(home, 'data'),
};

/** Runs helm; resolves with its exit code and output whatever the code. */
export function helm(args: readonly string[]): Promise<HelmResult> {
  return new Promise((resolve, reject) => {
    execFile(helmBinary(), args, { env: helmEnv, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') reject(error);
      else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

/** `--set-json` for each top-level value, so values keep their JSON types. */
export function valueArgs(values: Record<string, unknown>): string[] {
  return Object.entries(values).flatMap(([key, value]) => ['--set-json', `${key}=${JSON.stringify(value)}`]);
}

export interface Release {
  readonly name: string;
  readonly namespace: string;
  readonly values?: Record<string, unknown>;
}

/** `helm template` of a chart as objects; throws with Helm's message when it fails. */
export async function template(chart: string, release: Release): Promise<RenderedObject[]> {
  const result = await helm(['template', release.name, chart, '--namespace', release.namespace, ...valueArgs(release.values ?? {})]);
  if (result.code !== 0) throw new Error(`helm template ${path.basename(chart)} failed: ${result.stderr}`);
  return parseAllDocuments(result.stdout)
    .map((document) => document.toJS() as RenderedObject | null)
    .filter((object): object is RenderedObject => object !== null);
}

export function only(objects: readonly RenderedObject[], kind: string): RenderedObject[] {
  return objects.filter((object) => object.kind === kind);
}

export function one(objects: readonly RenderedObject[], kind: string): RenderedObject {
  const found = only(objects, kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, rendered ${found.length}`);
  return found[0] as RenderedObject;
}
