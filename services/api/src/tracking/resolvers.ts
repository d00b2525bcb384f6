import mercurius from 'mercurius';
import { DomainError } from '@shop/domain/kernel';
import type { Resolvers } from '../graphql/generated/resolver-types.ts';
import type { BodyProblem } from './track-body.ts';
import type { Tracker } from './tracker.ts';

/** What GraphQL hands the resolver: absent fields are missing, explicit nulls are dropped the same way. */
type TrackEventInput = Readonly<Record<string, unknown>>;

const fieldOf = (problem: BodyProblem): string => {
  const [index, property] = problem.path;
  if (index === undefined) return 'events';
  return property === undefined ? `events[${index}]` : `events[${index}].${property}`;
};

/** The event without its null fields: GraphQL's null is "not given", as an absent property is in a /track body. */
function withoutNulls(event: TrackEventInput): Record<string, unknown> {
  const plain: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(event)) if (value !== null) plain[key] = value;
  return plain;
}

/**
 * The track mutation records through POST /track's Tracker: the request's X-Session-ID, Authorization,
 * X-Forwarded-For and peer, the same validation, buffer and metrics. Its rate limit is taken before
 * GraphQL runs (graphqlMutationCharges charges the `track` policy per track field).
 */
export const trackingResolvers = (tracker: Tracker): Resolvers => ({
  Mutation: {
    async track(_root, args, context) {
      const { request } = context.reply;
      const { headers } = request;
      const outcome = await tracker.track(
        {
          sessionId: headers['x-session-id'],
          authorization: headers.authorization,
          forwardedFor: headers['x-forwarded-for'],
          userAgent: headers['user-agent'],
          remoteAddress: request.socket.remoteAddress,
        },
        args.events.map(withoutNulls),
      );
      if (outcome.ok) return { accepted: outcome.accepted };
      if (outcome.status === 503) {
        context.reply.header('retry-after', String(outcome.retryAfterSeconds));
        throw new mercurius.ErrorWithProps(outcome.message, { code: 'UNAVAILABLE', retryAfterSeconds: outcome.retryAfterSeconds });
      }
      const { problem } = outcome;
      if ('header' in problem) throw new DomainError('BAD_USER_INPUT', problem.message, { field: problem.header });
      const field = fieldOf(problem.body);
      throw new DomainError('BAD_USER_INPUT', `${field} ${problem.body.message}`, { field });
    },
  },
});
