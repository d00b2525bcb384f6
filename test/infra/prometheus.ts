// Prometheus's own tools for tests, unpacked from Debian's package by provision.ts.
import { isPrometheusProvisioned, prometheusPackage, promtoolBin } from './layout.ts';
import { requireProvisioned } from './managed-server.ts';

/** Path of the cached promtool (`check rules`, `test rules`); throws with the provisioning command when it is missing. */
export function promtoolBinary(): string {
  requireProvisioned(`${prometheusPackage().label} (${promtoolBin()})`, isPrometheusProvisioned());
  return promtoolBin();
}
