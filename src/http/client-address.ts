import { normaliseAddress, trustedProxySet } from '../lib/ip-address.ts';

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

export function createClientAddressResolver(trustedProxies: string[]): ClientAddressResolver {
  const trusted = trustedProxySet(trustedProxies);
  const isTrusted = (address: string) => trusted.has(address);
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
