import type { FastifyRequest } from 'fastify';
import { ClientAddress } from '../client-address.ts';

/** Who a bucket belongs to: a string per caller. */
export type CallerResolver = (request: FastifyRequest) => string;

const everyForwarder = new ClientAddress(undefined);

/** The client address as /track sees it, believing every forwarder; app.ts passes one that honours TRUSTED_PROXIES. */
export const clientAddressCaller =
  (address: ClientAddress = everyForwarder): CallerResolver =>
  (request) =>
    address.of(request.headers['x-forwarded-for'], request.socket.remoteAddress);

/** A request a BFF sent with its credential: the BFF's buckets are keyed by `id`, the shopper's by `shopper`. */
export interface BffCaller {
  /** Which BFF: the caller of its `bff:` buckets (and of the others when it names no shopper). */
  readonly id: string;
  /** The address of the shopper the BFF sends for; undefined for the BFF's own requests (none named). */
  readonly shopper: string | undefined;
}

/** The BFF behind a request; undefined when the request names none. Throws CallerRefused for a credential or shopper it cannot accept. */
export type BffResolver = (request: FastifyRequest) => Promise<BffCaller | undefined>;

/** A request naming a BFF or shopper the api cannot accept: answered with `status` before anything else runs. */
export class CallerRefused extends Error {
  readonly status: 400 | 401;
  readonly code: 'BAD_REQUEST' | 'UNAUTHENTICATED';
  /** The WWW-Authenticate value a 401 carries: the scheme the caller should use. */
  readonly challenge: string | undefined;

  constructor(status: 400 | 401, message: string, challenge?: string) {
    super(message);
    this.name = 'CallerRefused';
    this.status = status;
    this.code = status === 401 ? 'UNAUTHENTICATED' : 'BAD_REQUEST';
    this.challenge = challenge;
  }
}
