/** Reads environment variables one by one and collects every problem instead of stopping at the first. */
export class EnvReader {
  readonly problems: string[] = [];
  readonly #env: NodeJS.ProcessEnv;

  constructor(env: NodeJS.ProcessEnv) {
    this.#env = env;
  }

  problem(name: string, message: string): void {
    this.problems.push(`${name}: ${message}`);
  }

  /** The trimmed value, or undefined when unset or empty. */
  optional(name: string): string | undefined {
    const value = this.#env[name]?.trim();
    return value === '' ? undefined : value;
  }

  required(name: string, why: string): string | undefined {
    const value = this.optional(name);
    if (value === undefined) this.problem(name, `is required ${why}`);
    return value;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T, normalise = (v: string) => v): T {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const value = normalise(raw);
    if ((allowed as readonly string[]).includes(value)) return value as T;
    this.problem(name, `must be one of ${allowed.join(', ')} (got "${raw}")`);
    return fallback;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (Number.isInteger(value) && value >= min && value <= max) return value;
    this.problem(name, `must be a whole number from ${min} to ${max} (got "${raw}")`);
    return fallback;
  }

  /** A URL whose scheme is one of `protocols` (given without the colon). Secret URLs are never echoed. */
  url(name: string, protocols: readonly string[], options: { secret?: boolean } = {}): string | undefined {
    const raw = this.optional(name);
    if (raw === undefined) return undefined;
    const shown = options.secret ? '' : ` (got "${raw}")`;
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      this.problem(name, `must be a URL like ${protocols[0]}://host:port${shown}`);
      return undefined;
    }
    if (!protocols.includes(parsed.protocol.slice(0, -1))) {
      this.problem(name, `must use ${protocols.map((p) => `${p}://`).join(' or ')} (got ${parsed.protocol}//)`);
      return undefined;
    }
    if (parsed.hostname === '') {
      this.problem(name, `must name a host${shown}`);
      return undefined;
    }
    return raw;
  }

  /** Comma-separated `host:port` pairs. */
  hostPorts(name: string): string[] | undefined {
    const raw = this.optional(name);
    if (raw === undefined) return undefined;
    const entries = raw.split(',').map((entry) => entry.trim());
    const bad = entries.filter((entry) => !isHostPort(entry));
    if (bad.length === 0) return entries;
    this.problem(name, `must be host:port, comma-separated (bad entry "${bad[0]}")`);
    return undefined;
  }
}

function isHostPort(entry: string): boolean {
  const match = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(entry);
  if (!match) return false;
  const port = Number(match[2]);
  return port > 0 && port <= 65_535;
}
