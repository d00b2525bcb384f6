import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import type { KubeApiServer } from './kubernetes.ts';

export interface KubeReply<T> {
  readonly status: number;
  readonly body: T;
}

export type KubeRequest = <T = Record<string, unknown>>(method: string, path: string, body?: unknown, token?: string) => Promise<KubeReply<T>>;

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
