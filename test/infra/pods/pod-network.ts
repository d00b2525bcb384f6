// A network of its own for each pod the node agent runs, as a CNI plugin gives one: a network
// namespace with a veth pair to the host and an address of its own (10.250.0.0/16, a /30 per pod), so
// two pods may listen on one port (a rolling update's surge pod beside the old one) and the kubelet's
// probes and a test reach a pod at its IP.
//
// The test servers (PostgreSQL, Kafka, the API server…) listen on the host's 127.0.0.1, and Kafka
// advertises that address, so inside the pod 127.0.0.1 leads to the host for the ports it is given
// (every other stays the pod's own, e.g. an embedded database's): a DNAT to the host's end of the pair
// in the pod's namespace (route_localnet lets a loopback address leave it), and on the host a DNAT of
// what arrives on that end to 127.0.0.1 and a SNAT from 127.0.0.1, as the servers trust only loopback
// clients (PostgreSQL's pg_hba.conf, Redis's protected mode). Pods do not reach each other (the host
// does not forward), as nothing here needs them to.
//
// The whole range is routed nowhere on the host (an `unreachable` route, which each pod's /30
// overrides), as a cluster routes its pod range: a deleted pod's address refuses at once instead of
// leaving by the default route, where this machine's network answers some ports for any address.
//
// The host interface's name is the slot's lock (`ip link add` fails on a taken name), so node agents of
// concurrent test files never share an address. A namespace is named after its slot and the process
// that made it; one whose process is gone (a killed test run) is removed by the next process that opens one.
import { readdir } from 'node:fs/promises';
import { run } from '../proc.ts';

export interface PodNetwork {
  /** The pod's address, as status.podIP reports it. */
  readonly ip: string;
  /** Runs a command in the pod's network namespace: put these words before it. */
  readonly enter: readonly string[];
  /** Removes the namespace, the pair and the host's rule. */
  close(): Promise<void>;
}

const RANGE = '10.250.0.0/16';
const SLOTS = 16_384; // /30s in RANGE
const NAMESPACE_PREFIX = 'shop-pod-';
const NETNS_DIR = '/run/netns';

const address = (slot: number, host: number) => `10.250.${(slot * 4) >> 8}.${((slot * 4) & 255) + host}`;
const hostInterface = (slot: number) => `shp${slot}`;

/** The host's rules that take what a pod sends to the host's end of its pair to the host's loopback, from it. */
const hostRules = (slot: number) => [
  [
    'PREROUTING',
    '-i',
    hostInterface(slot),
    '-p',
    'tcp',
    '-m',
    'addrtype',
    '--dst-type',
    'LOCAL',
    '-j',
    'DNAT',
    '--to-destination',
    '127.0.0.1',
  ],
  ['INPUT', '-i', hostInterface(slot), '-p', 'tcp', '-j', 'SNAT', '--to-source', '127.0.0.1'],
];

async function removeHostRules(slot: number): Promise<void> {
  for (const rule of hostRules(slot)) await iptables('-D', ...rule).catch(() => undefined);
}

const ip = (...args: string[]) => run('ip', args);

/** Once per process, before its first pod network: the sweep and the range's route. */
let prepared: Promise<void> | undefined;
const prepare = () => (prepared ??= sweepAbandoned().then(() => ip('route', 'replace', 'unreachable', RANGE).then(() => undefined)));
const iptables = (...args: string[]) => run('iptables', ['-w', '-t', 'nat', ...args]);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the namespaces (and with them the pairs) of processes that ended without closing them. */
async function sweepAbandoned(): Promise<void> {
  const names = await readdir(NETNS_DIR).catch(() => [] as string[]);
  for (const name of names) {
    const match = new RegExp(`^${NAMESPACE_PREFIX}(\\d+)-(\\d+)$`).exec(name);
    if (!match || alive(Number(match[2]))) continue;
    await removeHostRules(Number(match[1]));
    await ip('netns', 'del', name).catch(() => undefined);
  }
}

async function claimSlot(): Promise<number> {
  const first = Math.floor(Math.random() * SLOTS);
  for (let tried = 0; tried < SLOTS; tried += 1) {
    const slot = (first + tried) % SLOTS;
    if (slot === 0) continue;
    const claimed = await ip('link', 'add', hostInterface(slot), 'type', 'veth', 'peer', 'name', `shq${slot}`).then(
      () => true,
      (error: Error) => {
        if (/File exists/.test(error.message)) return false;
        throw error;
      },
    );
    if (claimed) return slot;
  }
  throw new Error(`every pod network slot in ${RANGE} is taken`);
}

/** The pod networks this process holds open: one per pod that runs, none once every pod stopped. */
export async function openPodNetworks(): Promise<string[]> {
  return (await readdir(NETNS_DIR).catch(() => [] as string[])).filter(
    (name) => name.startsWith(NAMESPACE_PREFIX) && name.endsWith(`-${process.pid}`),
  );
}

/** iptables' multiport match takes at most 15 ports. */
const MULTIPORT_MAX = 15;

/** A network for a pod whose 127.0.0.1:`port` is the host's for each of `hostPorts`. */
export async function openPodNetwork(hostPorts: readonly number[]): Promise<PodNetwork> {
  await prepare();
  const slot = await claimSlot();
  const namespace = `${NAMESPACE_PREFIX}${slot}-${process.pid}`;
  const hostIp = address(slot, 1);
  const podIp = address(slot, 2);
  const inPod = (...args: string[]) => run('ip', ['netns', 'exec', namespace, ...args]);
  const close = async () => {
    // Only an empty namespace goes: deleting its pair would cut a process that outlived its pod off
    // the network and hide it.
    const left = (await run('ip', ['netns', 'pids', namespace]).catch(() => '')).trim();
    if (left) throw new Error(`pod network ${namespace} still has processes ${left.split('\n').join(', ')}`);
    await removeHostRules(slot);
    await ip('netns', 'del', namespace).catch(() => undefined);
    await ip('link', 'del', hostInterface(slot)).catch(() => undefined);
  };
  try {
    await ip('netns', 'add', namespace);
    await ip('link', 'set', `shq${slot}`, 'netns', namespace, 'name', 'eth0');
    await ip('addr', 'add', `${hostIp}/30`, 'dev', hostInterface(slot));
    await ip('link', 'set', hostInterface(slot), 'up');
    await run('sysctl', ['-qw', `net.ipv4.conf.${hostInterface(slot)}.route_localnet=1`]);
    for (const rule of hostRules(slot)) await iptables('-A', ...rule);
    await ip('-n', namespace, 'addr', 'add', `${podIp}/30`, 'dev', 'eth0');
    await ip('-n', namespace, 'link', 'set', 'eth0', 'up');
    await ip('-n', namespace, 'link', 'set', 'lo', 'up');
    await ip('-n', namespace, 'route', 'add', 'default', 'via', hostIp);
    await inPod('sysctl', '-qw', 'net.ipv4.conf.all.route_localnet=1');
    for (let first = 0; first < hostPorts.length; first += MULTIPORT_MAX) {
      const ports = hostPorts.slice(first, first + MULTIPORT_MAX).join(',');
      await inPod(
        'iptables',
        '-w',
        '-t',
        'nat',
        '-A',
        'OUTPUT',
        '-d',
        '127.0.0.1/32',
        '-p',
        'tcp',
        '-m',
        'multiport',
        '--dports',
        ports,
        '-j',
        'DNAT',
        '--to-destination',
        hostIp,
      );
    }
    await inPod('iptables', '-w', '-t', 'nat', '-A', 'POSTROUTING', '-o', 'eth0', '-s', '127.0.0.1/32', '-j', 'SNAT', '--to-source', podIp);
  } catch (error) {
    await close();
    throw new Error(`a network for a pod (root, iproute2 and iptables are needed): ${(error as Error).message}`);
  }
  return { ip: podIp, enter: ['nsenter', `--net=${NETNS_DIR}/${namespace}`], close };
}
