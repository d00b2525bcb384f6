import { describe, expect, it } from 'vitest';
import { manifestList, renderShop, ShopNameError } from '../src/index.ts';
import { migrationJobName, versionLabel } from '../src/names.ts';
import { minimalShop } from './support/shops.ts';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

describe('object names', () => {
  it('names the objects after the Shop', () => {
    const manifests = renderShop(minimalShop());
    expect(manifests.configMap.metadata.name).toMatch(/^acme-config-[0-9a-f]{10}$/);
    expect(manifests.api.deployment.metadata.name).toBe('acme-api');
    expect(manifests.api.service.metadata.name).toBe('acme-api');
    expect(manifests.api.disruptionBudget.metadata.name).toBe('acme-api');
    expect(manifests.worker.deployment.metadata.name).toBe('acme-worker');
    expect(manifests.consumer.deployment.metadata.name).toBe('acme-consumer');
  });

  it('puts every object in the Shop namespace, and in none when the Shop has none', () => {
    const namespaces = (namespace?: string) =>
      manifestList(renderShop(minimalShop((shop) => (shop.metadata = { name: 'acme', namespace })))).map((o) => o.metadata.namespace);
    expect(new Set(namespaces('shops'))).toEqual(new Set(['shops']));
    expect(new Set(namespaces(undefined))).toEqual(new Set([undefined]));
  });

  it('refuses a Shop without a name, or one whose object names would not be DNS labels', () => {
    expect(() => renderShop(minimalShop((shop) => (shop.metadata = {})))).toThrow(ShopNameError);
    expect(() => renderShop(minimalShop((shop) => (shop.metadata = { name: 'Acme' })))).toThrow(/metadata.name: "Acme"/);
    expect(() => renderShop(minimalShop((shop) => (shop.metadata = { name: 'a'.repeat(55) })))).toThrow(/at most 54 characters/);
    expect(renderShop(minimalShop((shop) => (shop.metadata = { name: 'a'.repeat(54) }))).consumer.deployment.metadata.name).toHaveLength(
      63,
    );
  });
});

describe('the migration Job name', () => {
  it('keeps a tag that is already DNS-safe', () => {
    expect(migrationJobName('acme', 'v142')).toBe('acme-migrate-v142');
    expect(migrationJobName('acme', 'release-7')).toBe('acme-migrate-release-7');
  });

  it('makes a tag DNS-safe and adds a hash, so tags that differ only in punctuation or case get different Jobs', () => {
    const names = ['1.4.0', '1-4-0', '1_4_0', 'V1.4.0', 'v1.4.0'].map((tag) => migrationJobName('acme', tag));
    expect(names[0]).toMatch(/^acme-migrate-1-4-0-[0-9a-f]{8}$/);
    expect(names[1]).toBe('acme-migrate-1-4-0');
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(DNS_LABEL);
  });

  it('cuts a long tag to 63 characters, keeping versions apart by the hash', () => {
    const long = `2024.06.01-${'a'.repeat(100)}`;
    const first = migrationJobName('acme', `${long}-1`);
    const second = migrationJobName('acme', `${long}-2`);
    expect(first).toHaveLength(63);
    expect(first).toMatch(DNS_LABEL);
    expect(first.startsWith('acme-migrate-2024-06-01-aaa')).toBe(true);
    expect(first).not.toBe(second);
  });

  it('ends in a letter or digit before the hash when the tag ends in punctuation', () => {
    expect(migrationJobName('acme', '1.0.')).toMatch(/^acme-migrate-1-0-[0-9a-f]{8}$/);
  });

  it('is the same for the same Shop and tag, different for another Shop with the same tag', () => {
    expect(migrationJobName('acme', '1.4.0')).toBe(migrationJobName('acme', '1.4.0'));
    expect(migrationJobName('acme', '1.4.0').slice(-8)).not.toBe(migrationJobName('other', '1.4.0').slice(-8));
  });

  it('is the name renderShop gives the Job', () => {
    const job = renderShop(minimalShop((shop) => (shop.spec.image.tag = '2.0.0-rc.1'))).migrationJob;
    expect(job.metadata.name).toBe(migrationJobName('acme', '2.0.0-rc.1'));
    expect(job.metadata.name).toMatch(/^acme-migrate-2-0-0-rc-1-[0-9a-f]{8}$/);
  });
});

describe('the version label', () => {
  it('is the tag when the tag is a valid label value, otherwise a valid value with a hash', () => {
    const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
    expect(versionLabel('1.4.0')).toBe('1.4.0');
    for (const tag of ['_build.7', '1.0.', 'x'.repeat(128), '_']) {
      expect(versionLabel(tag)).toMatch(LABEL_VALUE);
      expect(versionLabel(tag).length).toBeLessThanOrEqual(63);
    }
    expect(versionLabel('x'.repeat(128))).not.toBe(versionLabel(`${'x'.repeat(127)}y`));
  });
});
