// One probe attempt, as the kubelet makes it: an HTTP GET answered 200-399, a TCP connect, or a command
// in the container that exits 0, each within the probe's timeout, at the pod's address unless the
// probe names another host.
import { connect } from 'node:net';
import type { V1Container, V1Probe } from '@kubernetes/client-node';

/** Runs a command in the container (a new process in its root filesystem) and resolves with its exit code. */
export type ExecInContainer = (command: readonly string[], timeoutMs: number) => Promise<number | null>;

export interface ProbeResult {
  readonly ok: boolean;
  /** Why it failed, as a kubelet Event would say. */
  readonly message?: string;
}

function portNumber(port: number | string, container: V1Container): number {
  if (typeof port === 'number') return port;
  const named = container.ports?.find((candidate) => candidate.name === port);
  if (named) return named.containerPort;
  if (/^\d+$/.test(port)) return Number(port);
  throw new Error(`the probe names port "${port}", which container ${container.name} does not declare`);
}

async function httpGet(
  probe: NonNullable<V1Probe['httpGet']>,
  container: V1Container,
  podIp: string,
  timeoutMs: number,
): Promise<ProbeResult> {
  const scheme = (probe.scheme ?? 'HTTP').toLowerCase();
  const url = `${scheme}://${probe.host ?? podIp}:${portNumber(probe.port as number | string, container)}${probe.path ?? '/'}`;
  const headers = Object.fromEntries((probe.httpHeaders ?? []).map(({ name, value }) => [name, value]));
  try {
    const reply = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    await reply.body?.cancel();
    return reply.status >= 200 && reply.status < 400
      ? { ok: true }
      : { ok: false, message: `HTTP probe failed with statuscode: ${reply.status}` };
  } catch (error) {
    return { ok: false, message: `Get "${url}": ${(error as Error).message}` };
  }
}

function tcpSocket(
  probe: NonNullable<V1Probe['tcpSocket']>,
  container: V1Container,
  podIp: string,
  timeoutMs: number,
): Promise<ProbeResult> {
  const port = portNumber(probe.port as number | string, container);
  const host = probe.host ?? podIp;
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: timeoutMs });
    const done = (result: ProbeResult) => {
      socket.destroy();
      resolve(result);
    };
    socket.once('connect', () => done({ ok: true }));
    socket.once('timeout', () => done({ ok: false, message: `dial tcp ${host}:${port}: i/o timeout` }));
    socket.once('error', (error) => done({ ok: false, message: `dial tcp ${host}:${port}: ${error.message}` }));
  });
}

export async function runProbe(probe: V1Probe, container: V1Container, podIp: string, exec: ExecInContainer): Promise<ProbeResult> {
  const timeoutMs = (probe.timeoutSeconds ?? 1) * 1000;
  if (probe.httpGet) return httpGet(probe.httpGet, container, podIp, timeoutMs);
  if (probe.tcpSocket) return tcpSocket(probe.tcpSocket, container, podIp, timeoutMs);
  if (probe.exec?.command) {
    const code = await exec(probe.exec.command, timeoutMs);
    return code === 0
      ? { ok: true }
      : { ok: false, message: `command ${JSON.stringify(probe.exec.command)} exited with ${code ?? 'a signal'}` };
  }
  throw new Error(`container ${container.name} has a probe the pod runtime does not know (only httpGet, tcpSocket and exec)`);
}
