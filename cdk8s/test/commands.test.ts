// Every command the rendered workloads run names a file of this repository (the image's working
// directory is its root): a renamed entry point fails here, not in a crash-looping pod.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { START_API_PATH } from '../src/components.ts';
import { renderShop } from '../src/index.ts';
import { containerOf, minimalShop } from './support/shops.ts';

const REPOSITORY_ROOT = path.resolve(import.meta.dirname, '../..');

describe('rendered commands', () => {
  const manifests = renderShop(minimalShop((shop) => (shop.spec.secrets.workflowHost = { name: 'acme-temporal', key: 'address' })));
  const workloads = {
    worker: manifests.worker.deployment,
    consumer: manifests.consumer.deployment,
    'migration Job': manifests.migrationJob,
  };

  for (const [name, object] of Object.entries(workloads)) {
    it(`runs the ${name} with node and a script that exists`, () => {
      const [program, script, ...rest] = containerOf(object).command;
      expect(program).toBe('node');
      expect(script).toMatch(/\.ts$/);
      expect(existsSync(path.join(REPOSITORY_ROOT, script ?? '')), `${script} is not in the repository`).toBe(true);
      // Options after the script are the script's own, long ones (e.g. the migrate command's --summary-file=…).
      expect(rest.filter((argument) => argument.startsWith('-')).every((option) => /^--[a-z][a-z-]*(=.+)?$/.test(option))).toBe(true);
    });
  }

  it("runs the api through the image's start-api, which sets API_WORKERS from the CPU limit and runs a script that exists with node", () => {
    expect(containerOf(manifests.api.deployment).command).toEqual([START_API_PATH]);
    const startApi = readFileSync(path.join(REPOSITORY_ROOT, 'images/platform/start-api.sh'), 'utf8');
    expect(startApi).toContain('API_WORKERS=$(cpu-count)');
    const script = /^exec node (\S+)$/m.exec(startApi)?.[1];
    expect(existsSync(path.join(REPOSITORY_ROOT, script ?? '')), `${script} is not in the repository`).toBe(true);
  });
});
