import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-33';
import type { ServiceProcess } from './components.ts';
import { selectorLabels } from './labels.ts';
import { shopObjectNames } from './names.ts';
import type { ShopContext } from './shop-context.ts';
import type { ShopSpec } from './shop.generated.ts';

export type NetworkPolicySpec = NonNullable<ShopSpec['networkPolicy']>;
type Peers = NetworkPolicySpec['apiFrom'];

/** `<shop>-default-deny`: selects every pod of the Shop, the Jobs' too, and lets nothing in (Ingress with no rule); the components' own policies add what they accept. */
export const defaultDenyPolicyName = (shopName: string): string => `${shopName}-default-deny`;

/** Every pod of one Shop: the labels all of its components' pods carry. */
function shopPodSelector(shop: ShopContext): Record<string, string> {
  const { 'app.kubernetes.io/component': _component, ...labels } = selectorLabels(shop, 'api');
  return labels;
}

/**
 * spec.networkPolicy: NetworkPolicies are additive, so the default deny isolates every pod of the Shop
 * for ingress, and each component's policy lets in connections to its http port (the api's server;
 * the worker's and consumer's /metrics and probes) from `from` (unset or empty: from anywhere). Egress
 * is left alone: the Shop does not know where its database, cache, broker and the rest live.
 */
export class ShopDefaultDenyPolicy extends Construct {
  constructor(scope: Construct, id: string, shop: ShopContext) {
    super(scope, id);
    new k8s.KubeNetworkPolicy(this, 'Resource', {
      metadata: { name: defaultDenyPolicyName(shop.name) },
      spec: { podSelector: { matchLabels: shopPodSelector(shop) }, policyTypes: ['Ingress'] },
    });
  }
}

export interface ComponentNetworkPolicyProps {
  readonly shop: ShopContext;
  readonly process: ServiceProcess;
  /** Who may connect to the component's http port: unset, from anywhere; empty, from nowhere. */
  readonly from: Peers | undefined;
}

/** `<shop>-<component>`: the component's pods accept connections on their http port alone, from `from`. */
export class ComponentNetworkPolicy extends Construct {
  constructor(scope: Construct, id: string, props: ComponentNetworkPolicyProps) {
    super(scope, id);
    const { shop, process, from } = props;
    const port = { protocol: 'TCP', port: k8s.IntOrString.fromNumber(process.http.port) };
    new k8s.KubeNetworkPolicy(this, 'Resource', {
      metadata: { name: shopObjectNames(shop.name)[process.component], labels: { 'app.kubernetes.io/component': process.component } },
      spec: {
        podSelector: { matchLabels: selectorLabels(shop, process.component) },
        policyTypes: ['Ingress'],
        // No rule: nothing is let in (the API server stores an empty list as none).
        ingress: from === undefined ? [{ ports: [port] }] : from.length === 0 ? undefined : [{ ports: [port], from: from.map(peer) }],
      },
    });
  }
}

function peer(source: NonNullable<Peers>[number]): k8s.NetworkPolicyPeer {
  return { namespaceSelector: source.namespaceSelector, podSelector: source.podSelector };
}
