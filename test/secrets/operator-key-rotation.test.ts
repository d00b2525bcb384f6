// The operator's rotation of the generated keys on the real API server, with the stored secrets in
// real PostgreSQL (here, not in operator/test: the operator's own code never imports the platform).
// The node agent runs no processes: the test plays what the pods run. A component's pods hold the keys the generated
// Secret had when the test marks its Deployment available (when new pods would start and read it),
// and the rewrap Job runs the platform's own rewrap against the database with the Secret's keys.
// At every step each component writes stored secrets and issues access tokens, and every component
// reads and verifies all of them.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLogger, formatRewrapSummary, parseRewrapSummary, type RewrapSummary } from '@shop/runtime';
import { GENERATED_KEYS, REWRAP_COMMAND, type ShopSpec, type ShopStatus } from '@shop/cdk8s';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tokenSettingsOf } from '../../services/api/src/auth/token-settings-of.ts';
import { DEFAULT_TOKEN_SETTINGS, type Principal, signAccessToken, type TokenSettings, verifyAccessToken } from '@shop/domain/auth';
import { loadConfig, type Config } from '../../services/platform/src/config/config.ts';
import { SecretUnreadableError } from '../../services/platform/src/secrets/envelope.ts';
import { keyringOf, masterKeyring, type MasterKeyring } from '../../services/platform/src/secrets/keyring.ts';
import { rowsPerKeyId } from '../../services/platform/src/secrets/rows-per-key.ts';
import { guardStoredSecretKeys } from '../../services/platform/src/secrets/start-guard.ts';
import { readStoredSecret, setStoredSecret } from '../../services/platform/src/secrets/stored-secrets.ts';
import { openSecretsDatabase, type SecretsDatabase } from '../../services/platform/test/support/secrets-database.ts';
import { eventually } from '../support/wait.ts';
import { KEYS_REVISION_ANNOTATION } from '../../operator/src/keys/key-set.ts';
import { removalCheckJobName, suppliedRewrapJobName } from '../../operator/src/keys/rewrap-job.ts';
import { ROTATE_KEYS_ANNOTATION } from '../../operator/src/keys/rotation-policy.ts';
import type { RunningOperator } from '../../operator/src/operator.ts';
import { spawnOperator, type ChildOperator } from '../../operator/test/support/child-operator.ts';
import { completeJob, createTerminatingPod, failJob, markDeploymentAvailable } from '../../test/infra/workloads.ts';
import { runOperator } from '../../operator/test/support/run-operator.ts';
import { createReferencedSecrets, createShop, readShop, shopManifest, shopsPath, updateShop } from '../../operator/test/support/shops.ts';
import { expectStatus, startTestCluster, type TestCluster } from '../../operator/test/support/test-cluster.ts';

let cluster: TestCluster;
let operator: RunningOperator;
let db: SecretsDatabase;

/**
 * The operator's clock and the access tokens': moved ahead past a retention (at least 15 minutes,
 * the CRD says) instead of waiting for it. Only moved forward within a test.
 */
let clockOffsetMs = 0;
const clock = (): Date => new Date(Date.now() + clockOffsetMs);
/** The shortest retention the CRD accepts, which these tests use. */
const RETENTION = '15m';
const RETENTION_MS = 15 * 60_000;

beforeAll(async () => {
  [cluster, db] = await Promise.all([startTestCluster(), openSecretsDatabase('key_rotation')]);
  operator = await runOperator(cluster, { now: clock });
}, 180_000);

// Each test's Shop has keys of its own: rows left by another would be under keys it does not hold.
beforeEach(async () => {
  await db.database.pool.query('TRUNCATE stored_secrets');
});

afterAll(async () => {
  await operator?.stop();
  await Promise.all([cluster?.dispose(), db?.close()]);
});

/** Stops the operator and starts a new one: everything it needs is in the cluster, so it picks up where the old one was. */
async function restartOperator(): Promise<void> {
  await operator.stop();
  operator = await runOperator(cluster, { now: clock });
}

type Component = 'api' | 'worker' | 'consumer';

/** SECRETS_MASTER_KEY and SECRETS_MASTER_KEY_ROTATING_FROM as the pods get them. */
interface MasterKeys {
  readonly masterKey: string;
  readonly rotatingFrom: readonly string[];
}

interface GeneratedSecret extends MasterKeys {
  readonly revision: string | undefined;
  readonly signingKey: string;
  readonly previousSigningKey: string | undefined;
}

async function generatedSecret(ns: string): Promise<GeneratedSecret> {
  const reply = await cluster.kube<{ metadata: { annotations?: Record<string, string> }; data: Record<string, string> }>(
    'GET',
    `/api/v1/namespaces/${ns}/secrets/shop-generated-keys`,
  );
  expectStatus(reply, 200);
  const value = (key: string) =>
    reply.body.data[key] === undefined ? undefined : Buffer.from(reply.body.data[key], 'base64').toString('utf8');
  return {
    revision: reply.body.metadata.annotations?.[KEYS_REVISION_ANNOTATION],
    masterKey: value(GENERATED_KEYS.secretsMasterKey) as string,
    rotatingFrom: (value(GENERATED_KEYS.secretsMasterKeyRotatingFrom) ?? '').split(',').filter(Boolean),
    signingKey: value(GENERATED_KEYS.secretKey) as string,
    previousSigningKey: value(GENERATED_KEYS.secretKeyPrevious),
  };
}

/** The configuration of a process started now, from the variables the pods get from the Secrets: the platform's own parsing. */
function podConfig(master: MasterKeys, signing?: Pick<GeneratedSecret, 'signingKey' | 'previousSigningKey'>): Config {
  return loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    SECRETS_MASTER_KEY: master.masterKey,
    ...(master.rotatingFrom.length > 0 ? { SECRETS_MASTER_KEY_ROTATING_FROM: master.rotatingFrom.join(',') } : {}),
    ...(signing ? { SECRET_KEY: signing.signingKey } : {}),
    ...(signing?.previousSigningKey === undefined ? {} : { SECRET_KEY_PREVIOUS: signing.previousSigningKey }),
  });
}

const keyringFrom = (master: MasterKeys): MasterKeyring => keyringOf(podConfig(master));

const STAFF: Principal = { kind: 'staff', staffUserId: 9n };
const REPO_ROOT = new URL('../../', import.meta.url).pathname;
/** status.keyRotation's fields of a rewrap's count: times in the status are whole seconds. */
const statusCount = (count: RewrapSummary) => ({
  rowsPerKeyId: count.rowsPerKeyId,
  rowsCountedAt: count.countedAt.replace(/\.\d+Z$/, 'Z'),
});

const idOf = (base64: string) => masterKeyring(Buffer.from(base64, 'base64')).current.id;

interface StoredJob {
  metadata: { uid: string };
  spec: { template: { spec: { containers: Array<{ command?: string[] }> } } };
}

/** One namespace's Shop and what its pods hold. */
class ShopUnderTest {
  readonly pods = new Map<Component, MasterKeyring>();
  readonly signers = new Map<Component, TokenSettings>();
  /** Every row written so far and its value. */
  readonly rows = new Map<string, string>();
  /** Every access token issued so far: when, with which key, until when. */
  readonly tokens = new Map<string, { readonly issued: string; readonly signingKey: string; readonly expiresAt: Date }>();

  readonly ns: string;
  /** Where the pods get their master keys: the generated Secret unless the spec names others. */
  readonly masterKeys: () => Promise<MasterKeys>;
  /** Where the pods get their signing keys: the generated Secret unless the spec names others. */
  readonly signingKeys: () => Promise<Pick<GeneratedSecret, 'signingKey' | 'previousSigningKey'>>;

  constructor(ns: string, supplied: { masterKeys?: () => Promise<MasterKeys>; signingKeys?: ShopUnderTest['signingKeys'] } = {}) {
    this.ns = ns;
    this.masterKeys = supplied.masterKeys ?? (() => generatedSecret(ns));
    this.signingKeys = supplied.signingKeys ?? (() => generatedSecret(ns));
  }

  /** New pods of the component start: they read the Secret as it is now. */
  async startPods(component: Component): Promise<void> {
    const config = podConfig(await this.masterKeys(), await this.signingKeys());
    this.pods.set(component, keyringOf(config));
    this.signers.set(component, { ...tokenSettingsOf(config), now: clock });
    await markDeploymentAvailable(cluster.kube, this.ns, `shop-${component}`);
  }

  /**
   * Each component writes a row with its current key and issues an access token, then every
   * component reads every row and verifies every token issued so far that has not expired: nobody
   * is signed out.
   */
  async writeAndReadEverywhere(moment: string): Promise<void> {
    for (const [component, settings] of this.signers) {
      const { token, expiresAt } = await signAccessToken(STAFF, settings);
      this.tokens.set(token, { issued: `${moment} by the ${component}`, signingKey: settings.secret, expiresAt });
    }
    for (const [component, settings] of this.signers) {
      for (const [token, { issued, expiresAt }] of this.tokens) {
        if (expiresAt > clock())
          expect(await verifyAccessToken(token, settings), `token issued ${issued}, verified by the ${component}`).toEqual(STAFF);
      }
    }
    for (const [component, keyring] of this.pods) {
      const key = `rotation.${moment}_${component}`;
      const value = `${moment} by the ${component} ✓`;
      await setStoredSecret(db.database.prisma, keyring, { key, value, setAt: new Date(), setByStaffUserId: null });
      this.rows.set(key, value);
    }
    for (const [component, keyring] of this.pods) {
      for (const [key, value] of this.rows)
        expect(await readStoredSecret(db.database.prisma, keyring, key), `${key} read by the ${component} ${moment}`).toBe(value);
    }
  }

  async templateRevision(component: Component): Promise<string | undefined> {
    const reply = await cluster.kube<{ spec: { template: { metadata?: { annotations?: Record<string, string> } } } }>(
      'GET',
      `/apis/apps/v1/namespaces/${this.ns}/deployments/shop-${component}`,
    );
    return reply.status === 200 ? reply.body.spec.template.metadata?.annotations?.[KEYS_REVISION_ANNOTATION] : undefined;
  }

  /**
   * Plays the rollout of the Secret's keys revision: the api first, while the worker and the consumer
   * keep their pods, then those two (`beforeLast` runs once their templates name the revision, before
   * their pods start). Rows are written and read by every component at each step.
   */
  async rollOutKeys(moment: string, beforeLast?: () => Promise<void>): Promise<void> {
    const { revision } = await generatedSecret(this.ns);
    await eventually(async () => expect(await this.templateRevision('api')).toBe(revision));
    expect(await this.templateRevision('worker')).not.toBe(revision);
    await this.writeAndReadEverywhere(`${moment}_api_rolling`);
    await this.startPods('api');
    await this.writeAndReadEverywhere(`${moment}_api_rolled`);
    await eventually(async () =>
      expect([await this.templateRevision('worker'), await this.templateRevision('consumer')]).toEqual([revision, revision]),
    );
    await beforeLast?.();
    await this.startPods('worker');
    await this.startPods('consumer');
    await this.writeAndReadEverywhere(`${moment}_rolled`);
  }

  /**
   * The rewrap Job's pod: its command (REWRAP_COMMAND) with the keys the Secret gives it, its summary
   * written to a file of ours instead of /dev/termination-log. The Job completes when it exits 0, and
   * its pod's termination message is what the command wrote.
   */
  async runRewrapJob(name: string): Promise<RewrapSummary> {
    const { masterKey, rotatingFrom } = await this.masterKeys();
    const dir = await mkdtemp(path.join(tmpdir(), 'rewrap-'));
    try {
      const summaryFile = path.join(dir, 'termination-log');
      const [, ...args] = REWRAP_COMMAND.map((arg) => (arg.startsWith('--summary-file=') ? `--summary-file=${summaryFile}` : arg));
      const env = {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'test',
        DATABASE_URL: db.url,
        SECRETS_MASTER_KEY: masterKey,
        ...(rotatingFrom.length > 0 ? { SECRETS_MASTER_KEY_ROTATING_FROM: rotatingFrom.join(',') } : {}),
      };
      await promisify(execFile)(process.execPath, args, { cwd: REPO_ROOT, env });
      const message = await readFile(summaryFile, 'utf8');
      await completeJob(cluster.kube, this.ns, name, message);
      return parseRewrapSummary(message) as RewrapSummary;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async status(expected: Record<string, unknown>, timeoutMs?: number): Promise<ShopStatus> {
    return eventually(
      async () => {
        const { status } = await readShop(cluster.kube, this.ns, 'shop');
        expect(status).toMatchObject(expected);
        return status as ShopStatus;
      },
      { timeoutMs },
    );
  }

  /** Moves the clock past `time`, and brings the Shop a pass: the operator's requeue was set for the system clock. */
  async passTime(time: Date): Promise<void> {
    clockOffsetMs += Math.max(time.getTime() - clock().getTime(), 0) + 1_000;
    await updateShop(
      cluster.kube,
      this.ns,
      'shop',
      (stored) => void (stored.metadata = { ...stored.metadata, labels: { ...stored.metadata?.labels, clock: String(clockOffsetMs) } }),
    );
  }

  /** The tokens signed with `signingKey` that have not expired. */
  unexpiredTokensOf(signingKey: string): string[] {
    return [...this.tokens.values()]
      .filter((token) => token.signingKey === signingKey && token.expiresAt > clock())
      .map((token) => token.issued);
  }

  requestRotation(value: string): Promise<void> {
    return updateShop(
      cluster.kube,
      this.ns,
      'shop',
      (shop) => void (shop.metadata = { ...shop.metadata, annotations: { [ROTATE_KEYS_ANNOTATION]: value } }),
    );
  }

  async job(name: string): Promise<StoredJob | undefined> {
    const reply = await cluster.kube<StoredJob>('GET', `/apis/batch/v1/namespaces/${this.ns}/jobs/${name}`);
    return reply.status === 200 ? reply.body : undefined;
  }
}

const keysCurrent = (status: string, reason: string) =>
  expect.arrayContaining([expect.objectContaining({ type: 'KeysCurrent', status, reason })]);

/** A Ready Shop, its pods started, and a row written by each component. Generated keys unless `supplied` names the master keys and how to read them. */
async function readyShop(
  prefix: string,
  spec: Partial<ShopSpec>,
  supplied?: {
    secret: { name: string; data: Record<string, string> };
    masterKeys?: ShopUnderTest['masterKeys'];
    signingKeys?: ShopUnderTest['signingKeys'];
  },
): Promise<ShopUnderTest> {
  const ns = await cluster.namespace(prefix);
  await createReferencedSecrets(cluster.kube, ns);
  if (supplied)
    expectStatus(
      await cluster.kube('POST', `/api/v1/namespaces/${ns}/secrets`, {
        metadata: { name: supplied.secret.name },
        stringData: supplied.secret.data,
      }),
      201,
    );
  const manifest = shopManifest('shop', '1.0.0', spec);
  await createShop(cluster.kube, ns, {
    ...manifest,
    spec: { ...manifest.spec, ...spec, secrets: { ...manifest.spec.secrets, ...spec.secrets } },
  });
  const shop = new ShopUnderTest(ns, supplied);
  await eventually(async () => expect(await shop.job('shop-migrate-1-0-0')).toBeDefined());
  await completeJob(cluster.kube, ns, 'shop-migrate-1-0-0');
  await eventually(async () => expect((await cluster.kube('GET', `/apis/apps/v1/namespaces/${ns}/deployments/shop-api`)).status).toBe(200));
  await shop.startPods('api');
  await eventually(async () =>
    expect((await cluster.kube('GET', `/apis/apps/v1/namespaces/${ns}/deployments/shop-consumer`)).status).toBe(200),
  );
  await shop.startPods('worker');
  await shop.startPods('consumer');
  await shop.status({ phase: 'Ready' });
  await shop.writeAndReadEverywhere('before');
  return shop;
}

describe('rotation of the generated keys', () => {
  it('adds, switches (api first), rewraps and removes the old keys only after the retention, counted from the end of the switch, once no pod of an older revision is left and a removal check counted no row under the old key; a rotation asked for meanwhile waits for the previous signing key; every row reads and every unexpired token verifies at every moment, across operator restarts', async () => {
    const shop = await readyShop('rotation', { keyRotation: { enabled: false, interval: '1h', retention: RETENTION } });
    await shop.status({ conditions: keysCurrent('True', 'KeysCurrent') });
    const original = await generatedSecret(shop.ns);
    expect(original).toMatchObject({ revision: undefined, rotatingFrom: [], previousSigningKey: undefined });
    await shop.status({ keyRotation: { phase: 'Settled', currentKeyId: idOf(original.masterKey), retiringKeys: [] } });

    // (a) The new key is added for reading only, everywhere.
    await shop.requestRotation('first');
    await shop.status({ keyRotation: { phase: 'Adding' }, conditions: keysCurrent('False', 'AddingKeys') });
    const adding = await generatedSecret(shop.ns);
    expect(adding).toMatchObject({ revision: '1', masterKey: original.masterKey, signingKey: original.signingKey });
    expect(adding.rotatingFrom).toHaveLength(1);
    const [newKey] = adding.rotatingFrom as [string];
    expect(adding.previousSigningKey).not.toBe(original.signingKey);
    await restartOperator();
    await shop.rollOutKeys('adding');

    // (b) It becomes current; the old one stays readable; the api rolls out before the worker and the consumer.
    await shop.status({
      keyRotation: { phase: 'Switching', currentKeyId: idOf(newKey) },
      conditions: keysCurrent('False', 'SwitchingKeys'),
    });
    const switching = await generatedSecret(shop.ns);
    expect(switching).toMatchObject({
      revision: '2',
      masterKey: newKey,
      rotatingFrom: [original.masterKey],
      signingKey: adding.previousSigningKey,
      previousSigningKey: original.signingKey,
    });
    await restartOperator();
    // The worker's and the consumer's new pods take a minute to start: until then they use the old keys.
    let lastPodsSwitchedAt = new Date(0);
    await shop.rollOutKeys('switching', async () => {
      clockOffsetMs += 60_000;
      lastPodsSwitchedAt = clock();
    });

    // (c) The rewrap Job runs the platform's rewrap command.
    const rewrapping = await shop.status({ keyRotation: { phase: 'Rewrapping' }, conditions: keysCurrent('False', 'Rewrapping') });
    expect(rewrapping.keyRotation?.retiringKeys).toEqual([{ keyId: idOf(original.masterKey), removeAfter: expect.any(String) }]);
    await restartOperator();
    const job = await eventually(async () => {
      const found = await shop.job('shop-keys-2');
      expect(found).toBeDefined();
      return found;
    });
    expect(job?.spec.template.spec.containers[0]?.command).toEqual(REWRAP_COMMAND);
    await shop.writeAndReadEverywhere('rewrapping');
    const counted = await shop.runRewrapJob('shop-keys-2');
    expect(counted.rowsPerKeyId).toEqual({ [idOf(newKey)]: shop.rows.size });

    // (d) Every row is under the new key, as the Job's pod counted, but the old one stays until its
    // retention has passed, counted from the end of the switch's rollout (the worker and the consumer
    // used the old keys until then), not from when the switch was written.
    const settled = await shop.status({
      keyRotation: { phase: 'Settled', currentKeyId: idOf(newKey), ...statusCount(counted) },
      conditions: keysCurrent('True', 'RetiringKeys'),
    });
    const removeAfter = new Date(settled.keyRotation?.retiringKeys?.[0]?.removeAfter ?? 0);
    expect(removeAfter.getTime()).toBeGreaterThanOrEqual(Math.floor(lastPodsSwitchedAt.getTime() / 1000) * 1000 + RETENTION_MS);
    expect(removeAfter.getTime()).toBeLessThan(clock().getTime() + RETENTION_MS);
    expect(Object.fromEntries(await rowsPerKeyId(db.database.pool))).toEqual({ [idOf(newKey)]: shop.rows.size });
    expect((await generatedSecret(shop.ns)).rotatingFrom).toEqual([original.masterKey]);
    await restartOperator();
    await shop.writeAndReadEverywhere('settled');

    // A second rotation asked for now waits: SECRET_KEY_PREVIOUS holds the signing key from before
    // the first one, whose tokens verify until its own retention ends.
    await shop.requestRotation('second');
    await shop.status({ keyRotation: { phase: 'Settled' }, conditions: keysCurrent('True', 'RotationDeferred') });
    expect(await generatedSecret(shop.ns)).toMatchObject({ revision: '2', previousSigningKey: original.signingKey });
    expect(shop.unexpiredTokensOf(original.signingKey)).not.toEqual([]);
    await shop.writeAndReadEverywhere('deferred');

    // A pod of the Adding revision is still terminating, and writes a row under the old key after the rewrap.
    const terminating = await createTerminatingPod(cluster.kube, shop.ns, 'shop-api', { [KEYS_REVISION_ANNOTATION]: '1' });
    const oldPod = keyringFrom({ masterKey: original.masterKey, rotatingFrom: [newKey] });
    await setStoredSecret(db.database.prisma, oldPod, {
      key: 'rotation.straggler',
      value: 'written while terminating',
      setAt: new Date(),
      setByStaffUserId: null,
    });
    shop.rows.set('rotation.straggler', 'written while terminating');

    // Past the retention, nothing is removed while that pod is there.
    await shop.passTime(removeAfter);
    const held = await shop.status({ conditions: keysCurrent('False', 'OlderPodsLeft') });
    expect(held.conditions?.find((condition) => condition.type === 'KeysCurrent')?.message).toContain(terminating.name);
    expect(await generatedSecret(shop.ns)).toMatchObject({
      revision: '2',
      rotatingFrom: [original.masterKey],
      previousSigningKey: original.signingKey,
    });

    // Once it is gone, the removal check (the rewrap run again) is created. Its pod counts the row
    // under the old key: the master key stays; the signing key goes, every token it signed expired.
    await terminating.release();
    const check = removalCheckJobName('shop', idOf(newKey), [idOf(original.masterKey)]);
    const firstCheck = await eventually(async () => {
      const found = await shop.job(check);
      expect(found?.spec.template.spec.containers[0]?.command).toEqual(REWRAP_COMMAND);
      return found as StoredJob;
    });
    await shop.status({ conditions: keysCurrent('False', 'CheckingRemoval') });
    await completeJob(cluster.kube, shop.ns, check, formatRewrapSummary(await rowsPerKeyId(db.database.pool), new Date()));
    await eventually(async () =>
      expect(await generatedSecret(shop.ns)).toMatchObject({
        revision: '3',
        rotatingFrom: [original.masterKey],
        previousSigningKey: undefined,
      }),
    );
    expect(shop.unexpiredTokensOf(original.signingKey)).toEqual([]);
    await shop.rollOutKeys('signing_key_removed');
    await shop.status({ conditions: keysCurrent('False', 'RowsUnderRetiringKey') });
    expect((await generatedSecret(shop.ns)).rotatingFrom).toEqual([original.masterKey]);

    // Deleting the check runs it again: it moves that row, counts none under the old key, and the key goes.
    expectStatus(
      await cluster.kube('DELETE', `/apis/batch/v1/namespaces/${shop.ns}/jobs/${check}`, { propagationPolicy: 'Background' }),
      200,
    );
    await eventually(async () => expect((await shop.job(check))?.metadata.uid).not.toBeOneOf([undefined, firstCheck.metadata.uid]));
    const recounted = await shop.runRewrapJob(check);
    expect(recounted.rowsPerKeyId).toEqual({ [idOf(newKey)]: shop.rows.size });
    await eventually(async () =>
      expect(await generatedSecret(shop.ns)).toMatchObject({
        revision: '4',
        masterKey: newKey,
        rotatingFrom: [],
        signingKey: adding.previousSigningKey,
      }),
    );
    await shop.rollOutKeys('removed');
    for (const keyring of shop.pods.values()) expect(keyring.ids).toEqual([idOf(newKey)]);

    // SECRET_KEY_PREVIOUS is free: the rotation asked for starts.
    await shop.status({
      keyRotation: { phase: 'Adding', retiringKeys: [], ...statusCount(recounted) },
      conditions: keysCurrent('False', 'AddingKeys'),
    });
    const secondRotation = await generatedSecret(shop.ns);
    expect(secondRotation).toMatchObject({ revision: '5', signingKey: adding.previousSigningKey });
    expect(secondRotation.previousSigningKey).not.toBeOneOf([undefined, original.signingKey, adding.previousSigningKey]);
    await shop.rollOutKeys('second_adding');

    // A ciphertext swapped into another row is refused, even under the current key.
    const [first, second] = [...shop.rows.keys()] as [string, string];
    await db.database.pool.query(
      'UPDATE stored_secrets SET ciphertext = (SELECT ciphertext FROM stored_secrets WHERE key = $2) WHERE key = $1',
      [first, second],
    );
    await expect(readStoredSecret(db.database.prisma, shop.pods.get('api') as MasterKeyring, first)).rejects.toBeInstanceOf(
      SecretUnreadableError,
    );
  }, 180_000);

  it('keeps the old master key past its retention while the rewrap has not completed, and a process without it refuses to start', async () => {
    const shop = await readyShop('rewrap-fails', { keyRotation: { enabled: false, interval: '1h', retention: RETENTION } });
    const original = await generatedSecret(shop.ns);
    await shop.requestRotation('once');
    await shop.status({ keyRotation: { phase: 'Adding' } });
    await shop.rollOutKeys('adding');
    await shop.status({ keyRotation: { phase: 'Switching' } });
    await shop.rollOutKeys('switching');
    await eventually(async () => expect(await shop.job('shop-keys-2')).toBeDefined());
    await failJob(cluster.kube, shop.ns, 'shop-keys-2', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit');
    const failed = await shop.status({ keyRotation: { phase: 'Rewrapping' }, conditions: keysCurrent('False', 'RewrapFailed') });
    const removeAfter = new Date(failed.keyRotation?.retiringKeys?.[0]?.removeAfter ?? 0);

    // Past the retention, the key is still there: rows are under it.
    await shop.passTime(removeAfter);
    await shop.status({
      keyRotation: { phase: 'Rewrapping', retiringKeys: [{ keyId: idOf(original.masterKey) }] },
      conditions: keysCurrent('False', 'RewrapFailed'),
    });
    expect((await generatedSecret(shop.ns)).rotatingFrom).toEqual([original.masterKey]);

    // Had someone removed it anyway, the platform's start check would refuse to start, naming it.
    const withoutOldKey = { ...(await generatedSecret(shop.ns)), rotatingFrom: [] };
    const refusals: string[] = [];
    const guard = await guardStoredSecretKeys({
      pool: db.database.pool,
      keyring: keyringFrom(withoutOldKey),
      logger: createLogger({ level: 'ERROR', service: 'test' }),
      refuse: (problem) => void refusals.push(problem),
    });
    guard.stop();
    expect(refusals).toEqual([expect.stringContaining(idOf(original.masterKey))]);

    // Deleting the failed Job runs it again; once it completes, the retention being over, the removal
    // check runs, and the key goes.
    const failedJob = (await shop.job('shop-keys-2')) as StoredJob;
    expectStatus(
      await cluster.kube('DELETE', `/apis/batch/v1/namespaces/${shop.ns}/jobs/shop-keys-2`, { propagationPolicy: 'Background' }),
      200,
    );
    await eventually(async () => expect((await shop.job('shop-keys-2'))?.metadata.uid).not.toBeOneOf([undefined, failedJob.metadata.uid]));
    await shop.runRewrapJob('shop-keys-2');
    const check = removalCheckJobName('shop', idOf((await generatedSecret(shop.ns)).masterKey), [idOf(original.masterKey)]);
    await eventually(async () => expect(await shop.job(check)).toBeDefined());
    await shop.runRewrapJob(check);
    await shop.status({ keyRotation: { phase: 'Settled', retiringKeys: [] } });
    expect((await generatedSecret(shop.ns)).rotatingFrom).toEqual([]);
    expect(shop.unexpiredTokensOf(original.signingKey)).toEqual([]);
    await shop.rollOutKeys('removed');
    await shop.status({ phase: 'Ready', conditions: keysCurrent('True', 'KeysCurrent') });
  });
});

describe('an operator killed in each phase', () => {
  // Operator processes (test/support/operator-process.ts) with leader election, as deployed: a killed
  // one leaves its Lease to expire (3 s), and the next takes it. Each phase moves on in a pass of a
  // process made to freeze right after the key rotation step (TEST_FREEZE_AFTER_STEP), which is then
  // killed: the generated Secret has moved on, the status written at the end of the pass never was,
  // and no requeue was left behind. The rollouts in between are run by a process killed before they end.
  const leaseEnv = {
    LEASE_NAME: 'shop-operator',
    LEASE_DURATION_SECONDS: '3',
    LEASE_RENEW_DEADLINE_SECONDS: '2',
    LEASE_RETRY_PERIOD_SECONDS: '1',
  };
  let spawned = 0;

  function spawnFor(ns: string, frozenAfterKeyRotation: boolean): ChildOperator {
    spawned += 1;
    return spawnOperator({
      KUBECONFIG: cluster.server.kubeconfigPath(),
      WATCH_NAMESPACE: ns,
      METRICS_PORT: '0',
      LEASE_NAMESPACE: ns,
      ...leaseEnv,
      POD_NAME: `operator-${spawned}`,
      TEST_CLOCK_OFFSET_MS: String(clockOffsetMs),
      ...(frozenAfterKeyRotation ? { TEST_FREEZE_AFTER_STEP: 'key rotation' } : {}),
    });
  }

  async function kill(child: ChildOperator): Promise<void> {
    child.process.kill('SIGKILL');
    expect((await child.exited()).signal).toBe('SIGKILL');
  }

  /** One pass of a new operator up to the end of the key rotation step, then SIGKILL; returns the keys revision it left. */
  async function passThenKilled(shop: ShopUnderTest): Promise<string | undefined> {
    const doomed = spawnFor(shop.ns, true);
    try {
      await doomed.waitForLine('"frozen"');
    } finally {
      await kill(doomed);
    }
    return (await generatedSecret(shop.ns)).revision;
  }

  const statusPhase = async (shop: ShopUnderTest) => (await readShop(cluster.kube, shop.ns, 'shop')).status?.keyRotation?.phase;

  it('converges after a kill in each phase, each move on left half done, and every row reads and every token verifies throughout', async () => {
    const shop = await readyShop('killed', { keyRotation: { enabled: false, interval: '1h', retention: RETENTION } });
    const original = await generatedSecret(shop.ns);
    // From here on only the processes of this test reconcile.
    await operator.stop();
    let live: ChildOperator | undefined;
    try {
      // Settled → Adding.
      await shop.requestRotation('killed');
      expect(await passThenKilled(shop)).toBe('1');
      expect(await statusPhase(shop)).toBe('Settled');
      const [newKey] = (await generatedSecret(shop.ns)).rotatingFrom as [string];

      // Adding → Switching, and Switching → Rewrapping: the rollout's operator is killed before the
      // worker and the consumer are rolled out; the next one moves the phase on and is killed.
      for (const [phase, revisionAfter] of [
        ['Adding', '2'],
        ['Switching', '2'],
      ] as const) {
        live = spawnFor(shop.ns, false);
        await shop.status({ keyRotation: { phase } });
        const running = live;
        await shop.rollOutKeys(`killed_${phase}`, async () => {
          await kill(running);
          await shop.writeAndReadEverywhere(`killed_${phase}_no_operator`);
        });
        live = undefined;
        expect(await passThenKilled(shop)).toBe(revisionAfter);
        expect(await statusPhase(shop)).toBe(phase);
      }
      expect(await generatedSecret(shop.ns)).toMatchObject({ masterKey: newKey, rotatingFrom: [original.masterKey] });

      // Rewrapping: one pass creates the Job and is killed; the Job completes meanwhile; the next pass
      // records its count on the Secret, settles, and is killed.
      expect(await passThenKilled(shop)).toBe('2');
      expect(await shop.job('shop-keys-2')).toBeDefined();
      await shop.writeAndReadEverywhere('killed_rewrapping');
      const counted = await shop.runRewrapJob('shop-keys-2');
      expect(counted.rowsPerKeyId).toEqual({ [idOf(newKey)]: shop.rows.size });
      expect(await passThenKilled(shop)).toBe('2');
      expect(await statusPhase(shop)).toBe('Switching');

      // Settled, the retention over (the processes from here on run that much ahead): one pass creates
      // the removal check and is killed; the check completes meanwhile; the next pass removes the old
      // keys and is killed.
      clockOffsetMs += RETENTION_MS + 60_000;
      expect(await passThenKilled(shop)).toBe('2');
      const check = removalCheckJobName('shop', idOf(newKey), [idOf(original.masterKey)]);
      expect(await shop.job(check)).toBeDefined();
      const recounted = await shop.runRewrapJob(check);
      expect(await passThenKilled(shop)).toBe('3');
      expect(await generatedSecret(shop.ns)).toMatchObject({ masterKey: newKey, rotatingFrom: [], previousSigningKey: undefined });
      expect(shop.unexpiredTokensOf(original.signingKey)).toEqual([]);

      // The last one rolls the removal out and reports the count the killed pass recorded.
      live = spawnFor(shop.ns, false);
      await shop.rollOutKeys('killed_removed');
      await shop.status({
        phase: 'Ready',
        keyRotation: { phase: 'Settled', currentKeyId: idOf(newKey), retiringKeys: [], ...statusCount(recounted) },
        conditions: keysCurrent('True', 'KeysCurrent'),
      });
      expect(Object.fromEntries(await rowsPerKeyId(db.database.pool))).toEqual({ [idOf(newKey)]: shop.rows.size });
      for (const keyring of shop.pods.values()) expect(keyring.ids).toEqual([idOf(newKey)]);
    } finally {
      if (live) await kill(live);
      operator = await runOperator(cluster, { now: clock });
    }
  }, 180_000);
});

describe('scheduled rotation', () => {
  it('starts no rotation while an upgrade migrates, starts the one due once it is rolled out, and the next one by itself at the interval', async () => {
    // 40 s: the rotation the test plays (rollouts, the rewrap Job) must end before the next one is due,
    // or the Settled between them may pass unseen on a busy machine. The signing key is supplied: a
    // generated one would hold the next rotation until its retention (1 h) ends.
    // The first interval counts from the generated Secret's creation, the API server's time: this test
    // runs on the system clock (the Shops of the tests before it are done).
    clockOffsetMs = 0;
    const signingKey = randomBytes(48).toString('base64url');
    const shop = await readyShop(
      'scheduled',
      {
        keyRotation: { enabled: true, interval: '40s', retention: '1h' },
        secrets: { ...shopManifest('shop', '1.0.0').spec.secrets, secretKey: { name: 'signing', key: 'key' } },
      },
      { secret: { name: 'signing', data: { key: signingKey } }, signingKeys: async () => ({ signingKey, previousSigningKey: undefined }) },
    );
    const settled = await shop.status({ keyRotation: { phase: 'Settled', nextRotationAt: expect.any(String) } });
    const due = new Date(settled.keyRotation?.nextRotationAt ?? 0);

    // An upgrade: its migration runs past the due time, and the keys stay as they are meanwhile.
    await updateShop(cluster.kube, shop.ns, 'shop', (stored) => void (stored.spec.image.tag = '1.1.0'));
    await shop.status({ phase: 'Migrating' });
    await eventually(() => expect(clock().getTime()).toBeGreaterThan(due.getTime() + 1_000), { timeoutMs: 60_000, intervalMs: 250 });
    await updateShop(
      cluster.kube,
      shop.ns,
      'shop',
      (stored) => void (stored.metadata = { ...stored.metadata, labels: { touched: 'yes' } }),
    );
    await shop.status({ phase: 'Migrating', keyRotation: { phase: 'Settled' } });
    expect((await generatedSecret(shop.ns)).revision).toBeUndefined();

    // Once the new version runs everywhere, the rotation that is due starts.
    await completeJob(cluster.kube, shop.ns, 'shop-migrate-1-1-0');
    await eventually(async () =>
      expect(
        (
          await cluster.kube<{ spec: { template: { spec: { containers: Array<{ image: string }> } } } }>(
            'GET',
            `/apis/apps/v1/namespaces/${shop.ns}/deployments/shop-api`,
          )
        ).body.spec.template.spec.containers[0]?.image,
      ).toMatch(/:1\.1\.0$/),
    );
    await shop.startPods('api');
    // The worker and the consumer are applied one after the other: each is marked available only once its new template is there.
    for (const component of ['worker', 'consumer'] as const) {
      await eventually(async () =>
        expect(
          (
            await cluster.kube<{ metadata: { annotations: Record<string, string> } }>(
              'GET',
              `/apis/apps/v1/namespaces/${shop.ns}/deployments/shop-${component}`,
            )
          ).body.metadata.annotations['shop.dev/version'],
        ).toBe('1.1.0'),
      );
      await shop.startPods(component);
    }
    await shop.status({ keyRotation: { phase: 'Adding' } });
    await shop.rollOutKeys('adding');
    await shop.status({ keyRotation: { phase: 'Switching' } });
    await shop.rollOutKeys('switching');
    await eventually(async () => expect(await shop.job('shop-keys-2')).toBeDefined());
    await shop.runRewrapJob('shop-keys-2');
    const rotated = await shop.status({ phase: 'Ready', keyRotation: { phase: 'Settled' } });

    // Nothing changes any more: the operator's requeue at the next due time starts the next rotation.
    const next = new Date(rotated.keyRotation?.nextRotationAt ?? 0);
    const adding = await shop.status({ keyRotation: { phase: 'Adding' } }, 90_000);
    expect(clock().getTime()).toBeGreaterThanOrEqual(next.getTime());
    expect(adding.keyRotation?.retiringKeys).toHaveLength(1);
    expect((await generatedSecret(shop.ns)).revision).toBe('3');
  }, 240_000);
});

describe('spec.keyRotation.retention', () => {
  it('is refused by the API server below the access-token lifetime, so tokens the previous signing key signed verify until they expire', async () => {
    const ns = await cluster.namespace('retention');
    const lifetime = DEFAULT_TOKEN_SETTINGS.accessTokenSeconds;
    const create = (name: string, retention: string) =>
      cluster.kube<{ message: string }>('POST', shopsPath(ns), shopManifest(name, '1.0.0', { keyRotation: { retention } }));
    const refused = await create('too-short', `${lifetime - 1}s`);
    expect(refused.status).toBe(422);
    expect(refused.body.message).toContain('spec.keyRotation.retention');
    expect(refused.body.message).toContain(`must be at least ${lifetime / 60}m, the access-token lifetime`);
    expect((await create('long-enough', `${lifetime}s`)).status).toBe(201);
  });
});

describe('a supplied master key with earlier keys', () => {
  it('is never rotated; the rewrap Job moves the rows off the earlier keys and KeysCurrent says none is left under them', async () => {
    const [earlierKey, currentKey] = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64')];
    // Rows from before the user's rotation by hand, under the earlier key.
    for (const i of [1, 2, 3]) {
      await setStoredSecret(db.database.prisma, masterKeyring(Buffer.from(earlierKey, 'base64')), {
        key: `rotation.earlier_${i}`,
        value: `v${i}`,
        setAt: new Date(),
        setByStaffUserId: null,
      });
    }
    const masterKeys = { masterKey: currentKey, rotatingFrom: [earlierKey] };
    const shop = await readyShop(
      'supplied',
      {
        secrets: {
          ...shopManifest('shop', '1.0.0').spec.secrets,
          secretsMasterKey: { name: 'vault', key: 'current' },
          secretsMasterKeyRotatingFrom: { name: 'vault', key: 'earlier' },
        },
      },
      { secret: { name: 'vault', data: { current: currentKey, earlier: earlierKey } }, masterKeys: async () => masterKeys },
    );
    for (const i of [1, 2, 3]) shop.rows.set(`rotation.earlier_${i}`, `v${i}`);
    await shop.writeAndReadEverywhere('supplied');

    const job = suppliedRewrapJobName('shop', [idOf(currentKey), idOf(earlierKey)]);
    await shop.status({ conditions: keysCurrent('False', 'Rewrapping') });
    expect((await shop.job(job))?.spec.template.spec.containers[0]?.command).toEqual(REWRAP_COMMAND);
    const counted = await shop.runRewrapJob(job);
    const status = await shop.status({ conditions: keysCurrent('True', 'EarlierKeysUnused') });
    expect(status.conditions?.find((condition) => condition.type === 'KeysCurrent')?.message).toContain(
      `none is under the keys of secretsMasterKeyRotatingFrom (${idOf(earlierKey)})`,
    );
    expect(Object.fromEntries(await rowsPerKeyId(db.database.pool))).toEqual({ [idOf(currentKey)]: shop.rows.size });
    // Only the generated signing key is the operator's: the supplied master key has no rotation status,
    // only the rows per key id the Job's pod counted.
    expect(counted.rowsPerKeyId).toEqual({ [idOf(currentKey)]: shop.rows.size });
    expect(status.keyRotation).toEqual({ phase: 'Settled', retiringKeys: [], ...statusCount(counted) });
    await shop.writeAndReadEverywhere('rewrapped');

    // Once counted, the status keeps the count without the Job's pods, which are gone (or not listed again) in later passes.
    expectStatus(
      await cluster.kube(
        'DELETE',
        `/api/v1/namespaces/${shop.ns}/pods?labelSelector=${encodeURIComponent(`batch.kubernetes.io/job-name=${job}`)}`,
      ),
      200,
    );
    await updateShop(
      cluster.kube,
      shop.ns,
      'shop',
      (stored) => void (stored.spec.keyRotation = { ...stored.spec.keyRotation, retention: '337h' }),
    );
    const { generation } = (await readShop(cluster.kube, shop.ns, 'shop')).metadata;
    const later = await shop.status({ observedGeneration: generation, conditions: keysCurrent('True', 'EarlierKeysUnused') });
    expect(later.keyRotation).toEqual({ phase: 'Settled', retiringKeys: [], ...statusCount(counted) });
  });
});
