import { getArgumentValues, getOperationAST, parse, type DocumentNode, type FieldNode, type GraphQLSchema } from 'graphql';
import type { FastifyRequest } from 'fastify';
import type { RateLimiter } from '@shop/platform';
import { rootFieldsOf } from '../../graphql/root-fields.ts';
import { coerceVariables } from '../../graphql/variable-values.ts';
import type { PolicyCharge } from './plugin.ts';

export interface GraphqlChargeOptions {
  /** Which keys have a policy: only those are charged, so label values stay the configured ones. */
  readonly limiter: Pick<RateLimiter, 'policy'>;
  /** The schema GraphQL serves: a sign-in's email is read from the arguments as it coerces them, variables' defaults included. */
  readonly schema: () => GraphQLSchema;
  /** The session a checkout is placed for (a signed-in customer, or a guest session), keying the `:session` policies; undefined: none. */
  readonly sessionOf?: (request: FastifyRequest) => string | undefined;
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
const ACCOUNT_POLICIES: Readonly<Record<string, string>> = {
  loginCustomer: 'graphql:loginCustomer:account',
  loginStaff: 'graphql:loginStaff:account',
};

/**
 * placeOrder authorizes a card: besides its per-address `graphql:placeOrder`, it spends a bucket of the
 * session it checks out for, so card testing through fresh idempotency keys is slowed per shopper too.
 */
const SESSION_POLICIES: Readonly<Record<string, string>> = { placeOrder: 'graphql:placeOrder:session' };

interface GraphqlParams {
  readonly query?: unknown;
  readonly operationName?: unknown;
  readonly variables?: unknown;
}

/** The normalized email a sign-in's arguments name, as GraphQL coerces them; undefined when they do not coerce. */
function emailOf(schema: GraphQLSchema, field: FieldNode, variables: Record<string, unknown>): string | undefined {
  const definition = schema.getMutationType()?.getFields()[field.name.value];
  if (definition === undefined) return undefined;
  try {
    const email: unknown = getArgumentValues(definition, field, variables)['email'];
    return typeof email === 'string' ? email.trim().toLowerCase() : undefined;
  } catch {
    return undefined; // arguments GraphQL refuses: the sign-in does not run
  }
}

function paramsOf(request: FastifyRequest): GraphqlParams[] {
  const source = request.method === 'GET' ? request.query : request.body;
  if (Array.isArray(source)) return source.filter((item): item is GraphqlParams => typeof item === 'object' && item !== null);
  return typeof source === 'object' && source !== null ? [source as GraphqlParams] : [];
}

/**
 * For rateLimit's `bodyPoliciesFor` (the GraphQL route's preHandler): charges a GraphQL request one
 * token of `graphql:<field>` per root mutation field that has a policy (`track` spends the `track`
 * policy of POST /track), aliases counted (two aliased captureLead calls cost two), fragments
 * followed; a sign-in also one token of its account's bucket (ACCOUNT_POLICIES), with the email read
 * from the arguments as GraphQL coerces them (a variable's default included); placeOrder one of its
 * session's (SESSION_POLICIES). Keyed by the mutation field, not the operation name, which the client
 * chooses freely. Queries, and documents that do not parse (GraphQL answers those itself), cost
 * nothing here.
 */
export function graphqlMutationCharges(options: GraphqlChargeOptions): (request: FastifyRequest) => PolicyCharge[] {
  const prefix = options.prefix ?? 'graphql:';
  const fieldPolicies = options.fieldPolicies ?? DEFAULT_FIELD_POLICIES;
  return (request) => {
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
      const operation = getOperationAST(document, operationName);
      if (operation?.operation !== 'mutation') continue;
      const schema = options.schema();
      const variables = coerceVariables(schema, operation, params.variables).values;
      for (const field of rootFieldsOf(document, operation)) {
        const name = field.name.value;
        charge(Object.hasOwn(fieldPolicies, name) ? (fieldPolicies[name] as string) : `${prefix}${name}`);
        const accountPolicy = ACCOUNT_POLICIES[name];
        const email = accountPolicy === undefined || variables === undefined ? undefined : emailOf(schema, field, variables);
        if (accountPolicy !== undefined && email !== undefined) charge(accountPolicy, `account:${email}`);
        const sessionPolicy = SESSION_POLICIES[name];
        const session = sessionPolicy === undefined ? undefined : options.sessionOf?.(request);
        if (sessionPolicy !== undefined && session !== undefined) charge(sessionPolicy, session);
      }
    }
    return [...costs.values()];
  };
}
