// A value written as Grafana writes it for the units the dashboards use (their fieldConfig `unit`).

/** Three significant digits at most, without trailing zeros: 0.5, 12.3, 1230. */
function digits(value: number): string {
  if (value === 0) return '0';
  return Math.abs(value) >= 1000 ? value.toFixed(0) : String(Number(value.toPrecision(3)));
}

/** Scales by `base` through `prefixes` (the first is the unit itself) until the value is below `base`. */
function scaled(value: number, base: number, prefixes: readonly string[]): string {
  let index = 0;
  let rest = value;
  while (Math.abs(rest) >= base && index < prefixes.length - 1) {
    rest /= base;
    index += 1;
  }
  return `${digits(rest)}${prefixes[index]}`;
}

const short = (value: number) => scaled(value, 1000, ['', ' K', ' Mil', ' Bil', ' Tri']);

function seconds(value: number): string {
  const size = Math.abs(value);
  if (size === 0) return '0 s';
  if (size < 1e-3) return `${digits(value * 1e6)} µs`;
  if (size < 1) return `${digits(value * 1e3)} ms`;
  if (size < 60) return `${digits(value)} s`;
  if (size < 3600) return `${digits(value / 60)} min`;
  return `${digits(value / 3600)} hour`;
}

const UNITS: Readonly<Record<string, (value: number) => string>> = {
  short,
  reqps: (value) => `${short(value)} req/s`,
  ops: (value) => `${short(value)} ops/s`,
  percentunit: (value) => `${digits(value * 100)}%`,
  s: seconds,
  bytes: (value) => scaled(value, 1024, [' B', ' KiB', ' MiB', ' GiB', ' TiB']),
  bool: (value) => (value === 0 ? 'False' : 'True'),
};

/** Grafana's custom unit `suffix:<text>` appends the text as written, e.g. `suffix: rows/s`. */
const SUFFIX = 'suffix:';

/** `value` in `unit`; a unit this table does not know is written as `short`, as Grafana does with no unit. */
export function formatValue(value: number, unit: string | undefined): string {
  if (unit?.startsWith(SUFFIX)) return `${short(value)}${unit.slice(SUFFIX.length)}`;
  return (UNITS[unit ?? 'short'] ?? short)(value);
}
