import { Kind, parse, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import type { FastifyRequest } from 'fastify';
import type { RateLimiter } from '@shop/platform';
import type { PolicyCharge } from './plugin.ts';

export interface GraphqlChargeOptions {
  /** Which keys have a policy: only those are charged, so label values stay the configured ones. */
  readonly limiter: Pick<RateLimiter, 'policy'>;
  readonly path?: string;
  /** Policy keys are `${prefix}${mutation field}`. */
  readonly prefix?: string;
  /** Mutation fields charged to another endpoint's policy instead. */
  readonly fieldPolicies?: Readonly<Record<string, string>>;
}

/** The track mutation records beacons as POST /track does, so it spends the same `track` bucket. */
const DEFAULT_FIELD_POLICIES: Readonly<Record<string, string>> = { track: 'track' };

interface GraphqlParams {
  readonly query?: unknown;
  readonly operationName?: unknown;
}

function rootFieldNames(document: DocumentNode, operationName: string | undefined): string[] {
  const operations = document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  const operation = operationName === undefined ? (operations.length === 1 ? operations[0] : undefined) : operations.find((op) => op.name?.value === operationName);
  if (operation === undefined || operation.operation !== 'mutation') return [];
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);

  const names: string[] = [];
  const visited = new Set<string>();
  const collect = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) names.push(selection.name.value);
      else if (selection.kind === Kind.INLINE_FRAGMENT) collect(selection.selectionSet);
      else if (!visited.has(selection.name.value)) {
        visited.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment !== undefined) collect(fragment.selectionSet);
      }
    }
  };
  collect(operation.selectionSet);
  return names;
}

function paramsOf(request: FastifyRequest): GraphqlParams[] {
  const source = request.method === 'GET' ? request.query : request.body;
  if (Array.isArray(source)) return source.filter((item): item is GraphqlParams => typeof item === 'object' && item !== null);
  return typeof source === 'object' && source !== null ? [source as GraphqlParams] : [];
}

/**
 * For rateLimit's `bodyPoliciesFor`: charges a GraphQL request one token of `graphql:<field>` per root
 * mutation field that has a policy (`track` spends the `track` policy of POST /track), aliases counted (two aliased captureLead calls cost two), fragments
 * followed. Keyed by the mutation field, not the operation name, which the client chooses freely. Queries,
 * and documents that do not parse (GraphQL answers those itself), cost nothing here.
 */
export function graphqlMutationCharges(options: GraphqlChargeOptions): (request: FastifyRequest) => PolicyCharge[] {
  const path = options.path ?? '/graphql';
  const prefix = options.prefix ?? 'graphql:';
  const fieldPolicies = options.fieldPolicies ?? DEFAULT_FIELD_POLICIES;
  return (request) => {
    if (request.url.split('?')[0] !== path) return [];
    const costs = new Map<string, number>();
    for (const params of paramsOf(request)) {
      if (typeof params.query !== 'string' || !params.query.includes('mutation')) continue;
      let document: DocumentNode;
      try {
        document = parse(params.query, { noLocation: true });
      } catch {
        continue;
      }
      const operationName = typeof params.operationName === 'string' && params.operationName !== '' ? params.operationName : undefined;
      for (const field of rootFieldNames(document, operationName)) {
        const policy = Object.hasOwn(fieldPolicies, field) ? (fieldPolicies[field] as string) : `${prefix}${field}`;
        if (options.limiter.policy(policy) !== undefined) costs.set(policy, (costs.get(policy) ?? 0) + 1);
      }
    }
    return [...costs].map(([policy, cost]) => ({ policy, cost }));
  };
}
