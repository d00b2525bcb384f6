// Prometheus's own tools for tests and its server, unpacked from Debian's package by provision.ts, and the
// Prometheus Operator's CRDs, copied out of its Go module.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
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
import { requireProvisioned, startServer, type ServerHandle, type ServerPlacement } from './managed-server.ts';
import { freePort, launch } from './proc.ts';

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
  requireProvisioned(
    `Prometheus Operator ${PROMETHEUS_OPERATOR_VERSION} CRDs (${prometheusOperatorCrdsDir()})`,
    existsSync(prometheusOperatorCrdsMarker()),
  );
  return join(prometheusOperatorCrdsDir(), `monitoring.coreos.com_${plural}.yaml`);
}

/** The Prometheus server with `config` (prometheus.yml; JSON is valid YAML); returns once `/-/ready` answers 200. */
export async function startPrometheus(config: string, placement: ServerPlacement = {}): Promise<ServerHandle> {
  const binary = prometheusServerBinary();
  return startServer(
    'prometheus',
    async (baseDir) => {
      const port = placement.port ?? (await freePort());
      const configFile = join(baseDir, 'prometheus.yml');
      await writeFile(configFile, config);
      const url = `http://127.0.0.1:${port}`;
      const args = [
        `--config.file=${configFile}`,
        `--storage.tsdb.path=${join(baseDir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ];
      return {
        name: 'prometheus',
        port,
        url,
        baseDir,
        launch: (logFile) => launch(binary, args, { logFile }),
        probe: async () => {
          const response = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(2_000) });
          if (!response.ok) throw new Error(`/-/ready answered ${response.status}`);
        },
        readyTimeoutMs: 20_000,
        stopSignal: 'SIGTERM',
        stopTimeoutMs: 10_000,
      };
    },
    placement.dir,
  );
}
