// A container's environment as the kubelet builds it: envFrom first, then env in order, with
// `$(NAME)` references to variables defined before expanded, Secrets and ConfigMaps read from the
// API server, and the downward API's pod fields.
import type { V1Container, V1Pod } from '@kubernetes/client-node';

/** The data of a Secret (decoded) or a ConfigMap in the pod's namespace; undefined when it does not exist. */
export type SourceLookup = (kind: 'Secret' | 'ConfigMap', name: string) => Promise<Readonly<Record<string, string>> | undefined>;

/** Why a container cannot start (the kubelet's CreateContainerConfigError), with its message. */
export class ContainerConfigError extends Error {}

const POD_FIELDS: Record<string, (pod: V1Pod) => string | undefined> = {
  'metadata.name': (pod) => pod.metadata?.name,
  'metadata.namespace': (pod) => pod.metadata?.namespace,
  'metadata.uid': (pod) => pod.metadata?.uid,
  'spec.nodeName': (pod) => pod.spec?.nodeName,
  'spec.serviceAccountName': (pod) => pod.spec?.serviceAccountName,
  // Every pod shares the host's network here.
  'status.podIP': () => '127.0.0.1',
  'status.hostIP': () => '127.0.0.1',
};

function expand(value: string, defined: Readonly<Record<string, string>>): string {
  // $$ escapes a $; $(NAME) of an undefined variable stays as written, as the kubelet leaves it.
  return value.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (match, name: string | undefined) =>
    name === undefined ? '$' : (defined[name] ?? match),
  );
}

async function source(
  lookup: SourceLookup,
  kind: 'Secret' | 'ConfigMap',
  name: string,
  optional: boolean | undefined,
): Promise<Readonly<Record<string, string>>> {
  const data = await lookup(kind, name);
  if (data) return data;
  if (optional) return {};
  throw new ContainerConfigError(`${kind.toLowerCase()} "${name}" not found`);
}

export async function containerEnv(pod: V1Pod, container: V1Container, lookup: SourceLookup): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    const ref = from.secretRef ?? from.configMapRef;
    if (!ref?.name) continue;
    const data = await source(lookup, from.secretRef ? 'Secret' : 'ConfigMap', ref.name, ref.optional);
    for (const [key, value] of Object.entries(data)) env[`${from.prefix ?? ''}${key}`] = value;
  }
  for (const variable of container.env ?? []) {
    const from = variable.valueFrom;
    if (!from) {
      env[variable.name] = expand(variable.value ?? '', env);
      continue;
    }
    const keyRef = from.secretKeyRef ?? from.configMapKeyRef;
    if (keyRef?.name) {
      const kind = from.secretKeyRef ? 'Secret' : 'ConfigMap';
      const value = (await source(lookup, kind, keyRef.name, keyRef.optional))[keyRef.key];
      if (value !== undefined) env[variable.name] = value;
      else if (!keyRef.optional)
        throw new ContainerConfigError(`couldn't find key ${keyRef.key} in ${kind} ${pod.metadata?.namespace}/${keyRef.name}`);
      continue;
    }
    const field = from.fieldRef?.fieldPath;
    const read = field === undefined ? undefined : POD_FIELDS[field];
    if (!read)
      throw new ContainerConfigError(
        `${variable.name}: the pod runtime resolves only the fields ${Object.keys(POD_FIELDS).join(', ')} and Secret or ConfigMap keys`,
      );
    env[variable.name] = read(pod) ?? '';
  }
  return env;
}
