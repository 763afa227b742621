import { BlockList, isIP } from 'node:net';
import { parseCidr } from '../config.ts';

/**
 * The address a request came from, for per-address install counting and rate limits.
 * `X-Forwarded-For` is honoured only when the direct peer is one of the configured trusted
 * proxies; the list is then read from the right, skipping trusted proxies, so a client
 * cannot choose its own address by sending the header itself.
 */

/** The peer when there is no socket (requests fed to `app.handle`, as tests do). */
export const NO_SOCKET_ADDRESS = '127.0.0.1';

interface PeerSource {
  requestIP(request: Request): { address: string } | null;
}

export type ClientAddressResolver = (request: Request, server: PeerSource | null | undefined) => string;

/** `::ffff:10.0.0.1` → `10.0.0.1`; IPv6 lowercased; anything that is not an IP address → null. */
export function normaliseAddress(raw: string): string | null {
  let address = raw.trim();
  const bracketed = address.match(/^\[([^\]]+)\](?::\d+)?$/);
  if (bracketed?.[1]) address = bracketed[1];
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(':'));
  const mapped = address.match(/^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i);
  if (mapped?.[1]) address = mapped[1];
  const family = isIP(address);
  if (family === 4) return address;
  if (family === 6) return address.toLowerCase();
  return null;
}

/** Builds the list of trusted proxies from `TRUSTED_PROXIES` entries (validated by the configuration). */
export function parseTrustedProxies(entries: string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const range = parseCidr(entry);
    if (!range) throw new Error(`TRUSTED_PROXIES entry "${entry}" is not an IP address or CIDR range`);
    list.addSubnet(range.address, range.prefix, range.family);
  }
  return list;
}

export function createClientAddressResolver(trustedProxies: string[]): ClientAddressResolver {
  const trusted = parseTrustedProxies(trustedProxies);
  const isTrusted = (address: string) => trusted.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  const noProxies = trustedProxies.length === 0;

  return (request, server) => {
    const socket = server?.requestIP(request)?.address;
    const peer = (socket && normaliseAddress(socket)) ?? NO_SOCKET_ADDRESS;
    if (noProxies || !isTrusted(peer)) return peer;
    const forwarded = request.headers.get('x-forwarded-for');
    if (!forwarded) return peer;
    let client = peer;
    const hops = forwarded.split(',');
    for (let i = hops.length - 1; i >= 0; i -= 1) {
      const hop = normaliseAddress(hops[i]!);
      // A garbled entry ends the walk: the last trusted hop is the best address there is.
      if (!hop) return client;
      client = hop;
      if (!isTrusted(hop)) return hop;
    }
    return client;
  };
}

/**
 * What counts as one client for per-address budgets and limits: an IPv4 address, or an IPv6
 * address's /64 (one subscriber's network: a single host may rotate through all of it).
 */
export function networkOf(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('::', 2);
  const headGroups = head ? head.split(':') : [];
  const tailGroups = address.includes('::') ? (tail ? tail.split(':') : []) : [];
  // An embedded IPv4 tail (`::ffff:1.2.3.4`) only ever sits in the last 32 bits, outside the /64.
  const groups = address.includes('::')
    ? [...headGroups, ...Array<string>(Math.max(0, 8 - headGroups.length - tailGroups.length)).fill('0'), ...tailGroups]
    : headGroups;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
