import { BlockList, isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';

/** Who a bucket belongs to: a string per caller. Injected into rateLimit() so other resolvers can replace it. */
export type CallerResolver = (request: FastifyRequest) => string;

type RequestLike = Pick<FastifyRequest, 'headers'> & { readonly socket: { readonly remoteAddress?: string | undefined } };

/** The proxies whose X-Forwarded-For is believed: addresses and CIDR ranges ("10.0.0.0/8", "::1"). */
export function trustedProxyList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (isIP(address) === 0) throw new Error(`not an IP address or CIDR range: ${JSON.stringify(entry)}`);
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}

/**
 * An address as a bucket key: brackets and ports dropped ("[::1]:443", "203.0.113.7:80"), IPv4-mapped IPv6
 * as IPv4, IPv6 lower case. Undefined when it is not an IP address.
 */
export function normalizeIp(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let address = value.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed) address = bracketed[1] ?? '';
  else if (/^\d{1,3}(?:\.\d{1,3}){3}:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(':'));
  address = address.toLowerCase();
  if (address.startsWith('::ffff:') && isIP(address.slice(7)) === 4) address = address.slice(7);
  return isIP(address) === 0 ? undefined : address;
}

function isTrusted(list: BlockList, address: string): boolean {
  return list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

function forwardedFor(request: RequestLike): string[] {
  const header = request.headers['x-forwarded-for'];
  const joined = Array.isArray(header) ? header.join(',') : (header ?? '');
  return joined
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/**
 * The client IP a rate limit bucket is keyed by.
 *
 * Without `trustedProxies`: the first X-Forwarded-For address, else the socket address. Right when the api is
 * reachable only through a proxy that overwrites X-Forwarded-For (the ingress); anyone who can reach the api
 * directly can put any address there.
 *
 * With `trustedProxies`: X-Forwarded-For counts only when the socket peer is a trusted proxy, and the caller
 * is the right-most address that is not one (addresses further left were written by the client itself).
 *
 * An entry that is not an IP address is never used as a key; "unknown" when even the socket has none.
 */
export function rateLimitCaller(request: RequestLike, trustedProxies?: BlockList): string {
  const socket = normalizeIp(request.socket.remoteAddress);
  const forwarded = forwardedFor(request);
  if (trustedProxies === undefined) return normalizeIp(forwarded[0]) ?? socket ?? 'unknown';
  if (socket === undefined) return 'unknown';
  if (!isTrusted(trustedProxies, socket)) return socket;
  let caller = socket;
  for (let i = forwarded.length - 1; i >= 0; i -= 1) {
    const hop = normalizeIp(forwarded[i]);
    if (hop === undefined) break;
    caller = hop;
    if (!isTrusted(trustedProxies, hop)) break;
  }
  return caller;
}
