import { BlockList, isIP } from 'node:net';
import { TRACKING_FIELD_LENGTHS } from '@shop/domain/tracking';

/** `[2001:db8::1]:443`, `198.51.100.7:8080` and `::ffff:198.51.100.7` as plain addresses (IPv6 lower-cased, so one client is one key); anything else that is no IP as undefined. */
export function plainAddress(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let address = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed?.[1] !== undefined) address = bracketed[1];
  else if (/^[0-9.]+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(':'));
  const mapped = /^::ffff:([0-9.]+)$/i.exec(address);
  if (mapped?.[1] !== undefined && isIP(mapped[1]) === 4) address = mapped[1];
  return isIP(address) === 0 ? undefined : address.toLowerCase();
}

function trustList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

/**
 * The client's IP address for a tracking event.
 *
 * Without a trust list every forwarder is believed (as the specification describes): the first
 * address of X-Forwarded-For is the client. Anyone who can reach the api directly can then claim any
 * address, so only trusted hops may be able to reach it.
 *
 * With a trust list (TRUSTED_PROXIES, the safer setting) the header is read from the right, starting
 * at the connection's peer: each hop that is a trusted proxy hands over to the address it forwarded
 * for, and the first untrusted hop is the client. A client cannot move itself past a proxy that
 * appends what it saw.
 *
 * With no usable header the connection's peer is the client. The result fits ip_address (45 characters).
 */
export class ClientAddress {
  readonly #trusted: BlockList | undefined;

  constructor(trustedProxies: readonly string[] | undefined) {
    this.#trusted = trustedProxies === undefined ? undefined : trustList(trustedProxies);
  }

  of(forwardedFor: string | string[] | undefined, peer: string | undefined): string {
    const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? ''))
      .split(',')
      .map((hop) => hop.trim())
      .filter((hop) => hop !== '');
    const peerAddress = plainAddress(peer) ?? '';
    return this.#resolve(hops, peerAddress).slice(0, TRACKING_FIELD_LENGTHS.ipAddress);
  }

  #resolve(hops: readonly string[], peer: string): string {
    if (this.#trusted === undefined) return plainAddress(hops[0]) ?? peer;
    let client = peer;
    for (let index = hops.length - 1; index >= 0 && this.#isTrusted(client); index -= 1) {
      const next = plainAddress(hops[index]);
      // A hop that is no address ends the chain: the last trusted proxy is as far as we can see.
      if (next === undefined) break;
      client = next;
    }
    return client;
  }

  #isTrusted(address: string): boolean {
    const family = isIP(address);
    return family !== 0 && (this.#trusted?.check(address, family === 6 ? 'ipv6' : 'ipv4') ?? false);
  }
}
