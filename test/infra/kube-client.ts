import { readFile } from 'node:fs/promises';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { parse } from 'yaml';
import { eventually } from '../support/wait.ts';
import type { KubeApiServer } from './kubernetes.ts';

export interface KubeReply<T> {
  readonly status: number;
  readonly body: T;
}

export type KubeRequest = <T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
  token?: string,
) => Promise<KubeReply<T>>;

/**
 * A minimal client for tests: JSON over fetch with the server's bearer token. fetch takes no
 * per-request CA (that needs undici's Agent), so the calling worker trusts the server's CA in
 * addition to the usual ones; TLS stays verified.
 */
export function kubeClient(server: KubeApiServer): KubeRequest {
  const pems = server.caData.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  setDefaultCACertificates([...getCACertificates('default'), ...pems]);
  return async <T>(method: string, path: string, body?: unknown, token = server.token): Promise<KubeReply<T>> => {
    const response = await fetch(new URL(path, server.url), {
      method,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // /readyz answers plain text
    }
    return { status: response.status, body: parsed as T };
  };
}

/** Polls until the CRD's Established condition is True: the API server then serves its kind. */
export async function waitEstablished(kube: KubeRequest, name: string): Promise<void> {
  await eventually(async () => {
    const { body } = await kube<{ status?: { conditions?: Array<{ type: string; status: string }> } }>(
      'GET',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
    );
    if (!body.status?.conditions?.some((condition) => condition.type === 'Established' && condition.status === 'True'))
      throw new Error(`the CRD ${name} is not established`);
  });
}

/** Creates the CRD of a manifest file and waits until the API server serves its kind. */
export async function installCrd(kube: KubeRequest, file: string | URL): Promise<void> {
  const crd = parse(await readFile(file, 'utf8')) as { metadata: { name: string } };
  const created = await kube('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  if (created.status !== 201) throw new Error(`CRD ${crd.metadata.name}: HTTP ${created.status}: ${JSON.stringify(created.body)}`);
  await waitEstablished(kube, crd.metadata.name);
}
