import { withTimeout } from '../time/with-timeout.ts';

/** Where a dependency runs: a configured server, or the embedded default that needs nothing installed. */
export type DependencyMode = 'external' | 'embedded';

/** A dependency the readiness check can ask "are you usable right now?". */
export interface Probe {
  readonly mode: DependencyMode;
  /** Resolves when the dependency answered a real round trip; rejects with the reason otherwise. */
  ping(): Promise<void>;
}

export interface ProbeResult {
  readonly status: 'healthy' | 'unhealthy';
  readonly mode: DependencyMode;
  readonly latency_ms: number;
  readonly error?: string;
}

/** Runs one probe with its own deadline; never rejects. */
export async function runProbe(probe: Probe, timeoutMs: number): Promise<ProbeResult> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  try {
    await withTimeout(probe.ping(), timeoutMs, `no answer within ${timeoutMs} ms`);
    return { status: 'healthy', mode: probe.mode, latency_ms: latency() };
  } catch (error) {
    return { status: 'unhealthy', mode: probe.mode, latency_ms: latency(), error: describeError(error) };
  }
}

function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describeError(error.errors[0]);
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
