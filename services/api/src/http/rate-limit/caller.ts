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
