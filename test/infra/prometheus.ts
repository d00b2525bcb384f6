// Prometheus's own tools for tests, unpacked from Debian's package by provision.ts, and the Prometheus
// Operator's CRDs, copied out of its Go module.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  isPrometheusProvisioned,
  PROMETHEUS_OPERATOR_VERSION,
  prometheusOperatorCrdsDir,
  prometheusOperatorCrdsMarker,
  prometheusBin,
  prometheusPackage,
  promtoolBin,
} from './layout.ts';
import { requireProvisioned } from './managed-server.ts';

/** Path of the cached promtool (`check rules`, `test rules`); throws with the provisioning command when it is missing. */
export function promtoolBinary(): string {
  requireProvisioned(`${prometheusPackage().label} (${promtoolBin()})`, isPrometheusProvisioned());
  return promtoolBin();
}

/** Path of the cached Prometheus server; throws with the provisioning command when it is missing. */
export function prometheusServerBinary(): string {
  requireProvisioned(`${prometheusPackage().label} (${prometheusBin()})`, isPrometheusProvisioned());
  return prometheusBin();
}

/** Path of one monitoring.coreos.com CRD manifest, by its plural, e.g. `prometheusrules`. */
export function prometheusOperatorCrdFile(plural: string): string {
  requireProvisioned(`Prometheus Operator ${PROMETHEUS_OPERATOR_VERSION} CRDs (${prometheusOperatorCrdsDir()})`, existsSync(prometheusOperatorCrdsMarker()));
  return join(prometheusOperatorCrdsDir(), `monitoring.coreos.com_${plural}.yaml`);
}
