import { getOperationAST, Kind, parse, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode, type ValueNode } from 'graphql';
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

/**
 * Sign-ins also spend a bucket of the account their `email` names, whoever sends them: guessing one
 * account's password from many addresses is throttled too, whether or not the account exists.
 */
const ACCOUNT_POLICIES: Readonly<Record<string, string>> = { loginCustomer: 'graphql:loginCustomer:account', loginStaff: 'graphql:loginStaff:account' };

interface GraphqlParams {
  readonly query?: unknown;
  readonly operationName?: unknown;
  readonly variables?: unknown;
}

function rootFields(document: DocumentNode, operationName: string | undefined): FieldNode[] {
  const operation = getOperationAST(document, operationName);
  if (operation?.operation !== 'mutation') return [];
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);

  const fields: FieldNode[] = [];
  const visited = new Set<string>();
  const collect = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) fields.push(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) collect(selection.selectionSet);
      else if (!visited.has(selection.name.value)) {
        visited.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment !== undefined) collect(fragment.selectionSet);
      }
    }
  };
  collect(operation.selectionSet);
  return fields;
}

/** The text an argument holds, from the document or from the request's variables; undefined otherwise. */
function textArgument(field: FieldNode, name: string, variables: unknown): string | undefined {
  const value: ValueNode | undefined = field.arguments?.find((argument) => argument.name.value === name)?.value;
  if (value?.kind === Kind.STRING) return value.value;
  if (value?.kind !== Kind.VARIABLE || typeof variables !== 'object' || variables === null) return undefined;
  const given: unknown = (variables as Record<string, unknown>)[value.name.value];
  return typeof given === 'string' ? given : undefined;
}

function paramsOf(request: FastifyRequest): GraphqlParams[] {
  const source = request.method === 'GET' ? request.query : request.body;
  if (Array.isArray(source)) return source.filter((item): item is GraphqlParams => typeof item === 'object' && item !== null);
  return typeof source === 'object' && source !== null ? [source as GraphqlParams] : [];
}

/**
 * For rateLimit's `bodyPoliciesFor`: charges a GraphQL request one token of `graphql:<field>` per root
 * mutation field that has a policy (`track` spends the `track` policy of POST /track), aliases counted
 * (two aliased captureLead calls cost two), fragments followed; a sign-in also one token of its
 * account's bucket (ACCOUNT_POLICIES). Keyed by the mutation field, not the operation name, which the
 * client chooses freely. Queries, and documents that do not parse (GraphQL answers those itself), cost
 * nothing here.
 */
export function graphqlMutationCharges(options: GraphqlChargeOptions): (request: FastifyRequest) => PolicyCharge[] {
  const path = options.path ?? '/graphql';
  const prefix = options.prefix ?? 'graphql:';
  const fieldPolicies = options.fieldPolicies ?? DEFAULT_FIELD_POLICIES;
  return (request) => {
    if (request.url.split('?')[0] !== path) return [];
    const costs = new Map<string, PolicyCharge>();
    const charge = (policy: string, caller?: string) => {
      if (options.limiter.policy(policy) === undefined) return;
      const key = `${policy}\n${caller ?? ''}`;
      const cost = (costs.get(key)?.cost ?? 0) + 1;
      costs.set(key, { policy, cost, ...(caller === undefined ? {} : { caller }) });
    };
    for (const params of paramsOf(request)) {
      if (typeof params.query !== 'string' || !params.query.includes('mutation')) continue;
      let document: DocumentNode;
      try {
        document = parse(params.query, { noLocation: true });
      } catch {
        continue;
      }
      const operationName = typeof params.operationName === 'string' && params.operationName !== '' ? params.operationName : undefined;
      for (const field of rootFields(document, operationName)) {
        const name = field.name.value;
        charge(Object.hasOwn(fieldPolicies, name) ? (fieldPolicies[name] as string) : `${prefix}${name}`);
        const accountPolicy = ACCOUNT_POLICIES[name];
        const email = accountPolicy === undefined ? undefined : textArgument(field, 'email', params.variables);
        if (accountPolicy !== undefined && email !== undefined) charge(accountPolicy, `account:${email.trim().toLowerCase()}`);
      }
    }
    return [...costs.values()];
  };
}
