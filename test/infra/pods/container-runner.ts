// One container of a pod, run for real as a process in the image's root filesystem, kept as the kubelet
// keeps it: started with the pod's command, args, environment, user and working directory; probed
// (startup, then liveness and readiness); killed when liveness fails; restarted as the restart policy
// says with the kubelet's doubling back-off (CrashLoopBackOff meanwhile); its state, last state,
// restart count and termination message reported as a container status.
import { readFile, writeFile } from 'node:fs/promises';
import type { V1Container, V1Probe } from '@kubernetes/client-node';
import type { ContainerProcess, ImageContainer, RunOptions } from '../../images/support/image-container.ts';
import { startInRoot } from './chroot-process.ts';
import { lastLines } from '../proc.ts';
import type { PodNetwork } from './pod-network.ts';
import { runProbe, type ProbeResult } from './probe.ts';

export interface BackOff {
  readonly initialMs: number;
  readonly maxMs: number;
}

/** The kubelet's: 10 s, doubling, at most 5 min. */
export const KUBELET_BACKOFF: BackOff = { initialMs: 10_000, maxMs: 300_000 };

export type RootImage = Pick<ImageContainer, 'rootDir' | 'config'>;

export type RestartPolicy = 'Always' | 'OnFailure' | 'Never';

export interface ContainerRunnerOptions {
  readonly container: V1Container;
  /** The image's root filesystem (shared by every pod of the image: each process mounts its own view) and configuration. */
  readonly image: RootImage;
  /** The pod's: its processes run in it and its probes go to its address. */
  readonly network: Pick<PodNetwork, 'ip' | 'enter'>;
  /** Environment, mounts (the termination message file among them), user and working directory. */
  readonly run: RunOptions;
  readonly restartPolicy: RestartPolicy;
  readonly backOff: BackOff;
  /** The host file bound at the container's terminationMessagePath. */
  readonly terminationMessageFile: string;
  /** Told whenever the container's status changed. */
  readonly onChange: () => void;
}

export interface TerminatedState {
  readonly exitCode: number;
  readonly reason: string;
  readonly message?: string;
  readonly startedAt: string;
  readonly finishedAt: string;
}

export type ContainerState =
  { waiting: { reason: string; message?: string } } | { running: { startedAt: string } } | { terminated: TerminatedState };

export interface ContainerStatus {
  readonly name: string;
  readonly image: string;
  readonly imageID: string;
  readonly state: ContainerState;
  readonly lastState: ContainerState | Record<string, never>;
  readonly restartCount: number;
  readonly started: boolean;
  readonly ready: boolean;
}

const timestamp = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

/** The process's argv: the container's command or the image's entry point, then args or the image's Cmd. */
export function containerArgv(container: V1Container, image: RootImage): string[] {
  const command = container.command ?? image.config.Entrypoint;
  const args = container.args ?? (container.command ? [] : (image.config.Cmd ?? []));
  const argv = [...command, ...args];
  if (argv.length === 0) throw new Error(`container ${container.name}: neither the pod nor the image names a command`);
  return argv;
}

export class ContainerRunner {
  private state: ContainerState = { waiting: { reason: 'ContainerCreating' } };
  private lastState: ContainerState | Record<string, never> = {};
  private restartCount = 0;
  private started = false;
  private ready = false;
  private stopping = false;
  private process: ContainerProcess | undefined;
  private killReason: string | undefined;
  private wake: (() => void) | undefined;
  private readonly finished: Promise<void>;

  private readonly options: ContainerRunnerOptions;

  constructor(options: ContainerRunnerOptions) {
    this.options = options;
    this.finished = this.runUntilDone();
  }

  get name(): string {
    return this.options.container.name;
  }

  status(): ContainerStatus {
    const { container } = this.options;
    return {
      name: container.name,
      image: container.image ?? '',
      // A kubelet reports the pulled image's digest; an unpacked root filesystem has none.
      imageID: '',
      state: this.state,
      lastState: this.lastState,
      restartCount: this.restartCount,
      started: this.started,
      ready: this.ready,
    };
  }

  /** The process as it ran last, for a test that wants its output. */
  output(): string {
    return this.process?.output() ?? '';
  }

  /** Ends the process (SIGTERM, then SIGKILL) and any restart; resolves once nothing runs. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.process?.stop();
    await this.finished;
  }

  private set(change: () => void): void {
    change();
    this.options.onChange();
  }

  private async runUntilDone(): Promise<void> {
    let delayMs = this.options.backOff.initialMs;
    for (;;) {
      const terminated = await this.runOnce();
      const restart =
        !this.stopping &&
        (this.options.restartPolicy === 'Always' || (this.options.restartPolicy === 'OnFailure' && terminated.exitCode !== 0));
      if (!restart) {
        this.set(() => (this.state = { terminated }));
        return;
      }
      this.set(() => {
        this.lastState = { terminated };
        this.state = {
          waiting: {
            reason: 'CrashLoopBackOff',
            message: `back-off ${Math.round(delayMs / 1000)}s restarting failed container=${this.name}`,
          },
        };
      });
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        // why: the kubelet's CrashLoopBackOff, emulated: the wait before a restart is the behaviour
        setTimeout(resolve, delayMs).unref();
      });
      delayMs = Math.min(delayMs * 2, this.options.backOff.maxMs);
      if (this.stopping) return;
      this.set(() => (this.restartCount += 1));
    }
  }

  private async runOnce(): Promise<TerminatedState> {
    const { container, image, network, run, terminationMessageFile } = this.options;
    await writeFile(terminationMessageFile, '');
    const startedAt = timestamp();
    this.killReason = undefined;
    const process = startInRoot(image.rootDir, image.config, containerArgv(container, image), run, network.enter);
    this.process = process;
    this.set(() => {
      this.state = { running: { startedAt } };
      this.started = false;
      this.ready = false;
    });
    const probing = this.probe(process);
    const exit = await process.exited();
    probing.stop();
    this.set(() => {
      this.started = false;
      this.ready = false;
    });
    const written = (await readFile(terminationMessageFile, 'utf8').catch(() => '')).trim();
    const exitCode = exit.code ?? 137;
    const fallback =
      container.terminationMessagePolicy === 'FallbackToLogsOnError' && exitCode !== 0 ? lastLines(exit.output, 80) : undefined;
    const message = [this.killReason, written || fallback].filter((part) => part).join('\n');
    return {
      exitCode,
      reason: exitCode === 0 ? 'Completed' : 'Error',
      ...(message ? { message } : {}),
      startedAt,
      finishedAt: timestamp(),
    };
  }

  /** Startup first; once it passed (or there is none), liveness and readiness side by side. */
  private probe(process: ContainerProcess): { stop(): void } {
    const { container, image, network } = this.options;
    let active = true;
    const alive = () => active && process.exitReason() === undefined;
    const exec = async (command: readonly string[], timeoutMs: number) => {
      const probing = startInRoot(image.rootDir, image.config, command, this.options.run, network.enter);
      const result = await Promise.race([
        probing.exited(),
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), timeoutMs).unref()),
      ]);
      if (result === undefined) await probing.stop();
      return result === undefined ? null : result.code;
    };
    const attempt = (probe: V1Probe) => runProbe(probe, container, network.ip, exec);
    const kill = (reason: string) => {
      this.killReason = reason;
      void process.stop();
    };
    void (async () => {
      if (container.startupProbe) {
        const passed = await untilThreshold(container.startupProbe, attempt, alive, 'success');
        if (!alive()) return;
        if (!passed.reached) return kill(`Startup probe failed: ${passed.last?.message ?? ''}`);
      }
      this.set(() => (this.started = true));
      if (!container.readinessProbe) this.set(() => (this.ready = true));
      else
        void watchReadiness(
          container.readinessProbe,
          attempt,
          alive,
          (ready) => this.ready !== ready && this.set(() => (this.ready = ready)),
        );
      if (container.livenessProbe) {
        const failed = await untilThreshold(container.livenessProbe, attempt, alive, 'failure');
        if (alive() && failed.reached) kill(`Liveness probe failed: ${failed.last?.message ?? ''}`);
      }
    })();
    return { stop: () => (active = false) };
  }
}

// why: a probe's initialDelaySeconds and periodSeconds, emulated as the kubelet keeps them
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

interface Streak {
  readonly successes: number;
  readonly failures: number;
  readonly last: ProbeResult;
}

/** Probes every period while the process is alive, until `enough` says the streak so far settles it. */
async function probeLoop(
  probe: V1Probe,
  attempt: (probe: V1Probe) => Promise<ProbeResult>,
  alive: () => boolean,
  enough: (streak: Streak) => boolean,
): Promise<Streak | undefined> {
  await delay((probe.initialDelaySeconds ?? 0) * 1000); // why: the probe's own initialDelaySeconds
  let streak: Streak | undefined;
  while (alive()) {
    const last = await attempt(probe);
    streak = { successes: last.ok ? (streak?.successes ?? 0) + 1 : 0, failures: last.ok ? 0 : (streak?.failures ?? 0) + 1, last };
    if (enough(streak)) return streak;
    await delay((probe.periodSeconds ?? 10) * 1000); // why: the probe's own periodSeconds
  }
  return undefined;
}

/** Whether `wanted` reached its threshold first (a startup probe gives up after failureThreshold failures). */
async function untilThreshold(
  probe: V1Probe,
  attempt: (probe: V1Probe) => Promise<ProbeResult>,
  alive: () => boolean,
  wanted: 'success' | 'failure',
): Promise<{ reached: boolean; last?: ProbeResult }> {
  const succeeded = (streak: Streak) => streak.successes >= (probe.successThreshold ?? 1);
  const failed = (streak: Streak) => streak.failures >= (probe.failureThreshold ?? 3);
  const streak = await probeLoop(probe, attempt, alive, (current) => (wanted === 'success' && succeeded(current)) || failed(current));
  if (!streak) return { reached: false };
  return { reached: wanted === 'success' ? succeeded(streak) : failed(streak), last: streak.last };
}

function watchReadiness(
  probe: V1Probe,
  attempt: (probe: V1Probe) => Promise<ProbeResult>,
  alive: () => boolean,
  report: (ready: boolean) => void,
): Promise<unknown> {
  return probeLoop(probe, attempt, alive, (streak) => {
    if (streak.successes >= (probe.successThreshold ?? 1)) report(true);
    if (streak.failures >= (probe.failureThreshold ?? 3)) report(false);
    return false;
  });
}
