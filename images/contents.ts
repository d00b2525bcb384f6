// What each image carries and how it starts: the one list that both build paths follow. The
// Containerfile's build stage and the offline builder both call assembleApp() with it, and
// test/images/containerfile.test.ts checks the Containerfile's runtime settings against it.
import { readFileSync } from 'node:fs';
import { API, CONSUMER, MIGRATE_COMMAND, REWRAP_COMMAND, START_API_PATH, WORKER } from '../cdk8s/src/components.ts';
import { RUN_AS_USER } from '../cdk8s/src/security.ts';

export type ImageTarget = 'platform' | 'operator' | 'storefront';

export interface ImageSpec {
  /** The Containerfile stage that builds it (`--target`). */
  readonly target: ImageTarget;
  /** Repository name without registry: `shop/platform`. */
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** npm workspaces whose production dependencies go into node_modules. */
  readonly workspaces: readonly string[];
  /** Files and folders of the repository (relative to its root) copied into APP_DIR, minus EXCLUDED. */
  readonly paths: readonly string[];
  /** The programs the deployment runs in this image, each relative to APP_DIR (checked by the smoke tests). */
  readonly programs: readonly string[];
  /** Scripts of the repository installed as programs: path in the image -> path in the repository. */
  readonly scripts: Readonly<Record<string, string>>;
  readonly entrypoint: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** The most the image's files may take unpacked (see images/README.md). */
  readonly sizeBudgetMB: number;
  /** Exposed ports. */
  readonly ports: readonly number[];
  /**
   * Its part in the extension sync chain (images/sync): the platform image carries the sync manifest
   * of its extension set; a front-end image is built only with the EXTENSIONS_SYNC_HASH of that set.
   */
  readonly extensionSync?: 'manifest' | 'front-end';
}

/** The repository root inside the image, and the processes' working directory. */
export const APP_DIR = '/app';
/** The only writable path: Kubernetes mounts an emptyDir there (cdk8s/src/pod-template.ts). */
export const WRITABLE_DIR = '/tmp';
/** The Node 24 binary from the `node` npm package. */
export const NODE_PATH = '/usr/local/bin/node';
/** Set in the images: a scratch-based image has no PATH of its own. */
const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** The same unprivileged user as the rendered pods' securityContext. */
export const RUN_AS = `${RUN_AS_USER}:${RUN_AS_USER}`;
/** Inside `paths`: what only the tests and the build need. */
export const EXCLUDED = [/(^|\/)test\//, /\.test\.ts$/, /(^|\/)tsconfig[^/]*\.json$/, /(^|\/)README\.md$/];
/** The embedded database's relative `.data` folder (services/platform/src/db/database.ts), made a link into WRITABLE_DIR. */
export const DATA_LINK = { path: '.data', target: WRITABLE_DIR } as const;
/** Prints the CPUs the container may use; start-api calls it. */
export const CPU_COUNT_PATH = '/usr/local/bin/cpu-count';

export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;

/** `shop/platform:0.1.0` */
export function imageReference(image: ImageSpec): string {
  return `${image.name}:${VERSION}`;
}

const platform: ImageSpec = {
  target: 'platform',
  name: 'shop/platform',
  title: 'Shop platform',
  description: 'The api, worker, consumer, migration command and seed of the shop platform, with its extensions',
  // The in-tree extensions that have dependencies of their own are workspaces (order-notes has none).
  workspaces: [
    'services/runtime',
    'services/platform',
    'services/domain',
    'services/api',
    'services/worker',
    'services/consumer',
    'extensions/s3-storage',
  ],
  paths: [
    'package.json',
    'services/runtime',
    'services/platform',
    'services/domain',
    'services/api',
    'services/worker',
    'services/consumer',
    'prisma',
    'schemas/events',
    'extensions',
  ],
  programs: [
    API.entrypoint,
    WORKER.entrypoint,
    CONSUMER.entrypoint,
    MIGRATE_COMMAND[1] as string,
    REWRAP_COMMAND[1] as string,
    'services/api/src/seed.ts',
  ],
  scripts: { [START_API_PATH]: 'images/platform/start-api.sh', [CPU_COUNT_PATH]: 'images/platform/cpu-count.sh' },
  entrypoint: [START_API_PATH],
  env: {
    PATH,
    // Outside production the api binds 127.0.0.1, which nothing outside the container reaches.
    HOST: '0.0.0.0',
    FILE_STORAGE_DIR: `${WRITABLE_DIR}/uploads`,
    // The worker's workflow bundler (@swc/core) unpacks its native addon into $HOME/.cache (/tmp) and
    // refuses a cache under a folder others may write without the sticky bit. A pod's /tmp is an
    // emptyDir, mode 0777 without it, written only by the pod's own user: without this the worker
    // cannot start on Kubernetes.
    SWC_NATIVE_BINDING_CACHE_SKIP_SECURITY_CHECK: '1',
  },
  // 448 MB when set: Node 127 MB, node_modules about 250 MB (Prisma's client runtime, Temporal's
  // native bridge and workflow bundler), the Debian base 60 MB.
  sizeBudgetMB: 500,
  extensionSync: 'manifest',
  ports: [API.http.port, WORKER.http.port, CONSUMER.http.port],
};

const operator: ImageSpec = {
  target: 'operator',
  name: 'shop/operator',
  title: 'Shop operator',
  description: 'The Kubernetes operator that reconciles Shop resources',
  workspaces: ['services/runtime', 'operator', 'cdk8s'],
  // The generated dashboards and alert rules the operator provisions for a Shop (operator/src/monitoring).
  paths: ['package.json', 'services/runtime', 'operator', 'cdk8s', 'dashboards/json', 'alerts/shop.rules.yaml'],
  programs: ['operator/src/main.ts'],
  scripts: {},
  entrypoint: [NODE_PATH, 'operator/src/main.ts'],
  env: { PATH },
  // METRICS_PORT's default (operator/src/config.ts).
  ports: [8081],
  // 294 MB when set: Node 127 MB, node_modules about 100 MB (the Kubernetes client, cdk8s), the Debian base 60 MB.
  sizeBudgetMB: 330,
};

const storefront: ImageSpec = {
  target: 'storefront',
  name: 'shop/storefront-example',
  title: 'Shop example storefront',
  description: 'The example storefront: a demo page with the tracking beacon, and POST /api/track relayed to the api',
  workspaces: ['services/runtime', 'services/beacon', 'services/storefront-example'],
  paths: ['package.json', 'services/runtime', 'services/beacon', 'services/storefront-example'],
  programs: ['services/storefront-example/src/main.ts'],
  scripts: {},
  entrypoint: [NODE_PATH, 'services/storefront-example/src/main.ts'],
  // Outside a container the storefront binds 127.0.0.1, which nothing outside the container reaches.
  env: { PATH, HOST: '0.0.0.0' },
  // PORT's default (services/storefront-example/src/config.ts).
  ports: [8080],
  // Node 127 MB and the Debian base 60 MB; its own dependencies are a few MB.
  sizeBudgetMB: 230,
  extensionSync: 'front-end',
};

export const IMAGES: readonly ImageSpec[] = [platform, operator, storefront];
