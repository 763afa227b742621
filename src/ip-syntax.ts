import { BlockList, isIP } from 'node:net';

/**
 * IP address syntax: an address's family, a CIDR range, strict numeric parsing, and sets of
 * ranges. A leaf beneath `config.ts` (which validates address settings with it, D130); what an
 * address means (public, which network, behind which proxy) is `src/lib/ip-address.ts`.
 */
export type IpFamily = 'ipv4' | 'ipv6';

/** `ipv4`, `ipv6`, or null for anything that is not an IP address. */
export function ipFamily(address: string): IpFamily | null {
  const version = isIP(address);
  return version === 4 ? 'ipv4' : version === 6 ? 'ipv6' : null;
}

export interface CidrRange {
  address: string;
  prefix: number;
  family: IpFamily;
}

/** `10.0.0.0/8`, `fd00::/8` or a single address; null for anything else. */
export function parseCidr(entry: string): CidrRange | null {
  const [address = '', rawPrefix] = entry.trim().split('/', 2);
  const family = ipFamily(address);
  if (family === null) return null;
  const maxPrefix = family === 'ipv6' ? 128 : 32;
  const prefix = rawPrefix === undefined ? maxPrefix : /^\d{1,3}$/.test(rawPrefix) ? Number(rawPrefix) : Number.NaN;
  if (!(prefix >= 0 && prefix <= maxPrefix)) return null;
  return { address: address.toLowerCase(), prefix, family };
}

/** A set of ranges to test addresses against (parsed ranges only: see `parseCidr`). */
export interface AddressSet {
  has(address: string): boolean;
}

export function addressSet(ranges: readonly CidrRange[]): AddressSet {
  const list = new BlockList();
  for (const range of ranges) list.addSubnet(range.address, range.prefix, range.family);
  return {
    has(address) {
      const family = ipFamily(address);
      return family !== null && list.check(address, family);
    },
  };
}

/** Strict dotted quad (no leading zeros, which some parsers read as octal), as a 32-bit number. */
export function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part) || Number(part) > 255) return null;
    value = value * 256 + Number(part);
  }
  return value;
}

/** An IPv6 address (an embedded dotted quad and a zone id tolerated) as a 128-bit number. */
export function parseIPv6(text: string): bigint | null {
  // A zone id only qualifies a link-local address; the number is the same without it.
  let address = text.split('%', 1)[0]!;
  const lastColon = address.lastIndexOf(':');
  if (lastColon === -1) return null;
  if (address.includes('.', lastColon)) {
    const v4 = parseIPv4(address.slice(lastColon + 1));
    if (v4 === null) return null;
    address = `${address.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((group) => (/^[0-9a-f]{1,4}$/i.test(group) ? parseInt(group, 16) : NaN)));
  const left = groups(halves[0]!);
  const right = halves.length === 2 ? groups(halves[1]!) : [];
  if ([...left, ...right].some(Number.isNaN)) return null;
  let all: number[];
  if (halves.length === 1) {
    if (left.length !== 8) return null;
    all = left;
  } else {
    const missing = 8 - left.length - right.length;
    if (missing < 1) return null;
    all = [...left, ...new Array<number>(missing).fill(0), ...right];
  }
  return all.reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}
