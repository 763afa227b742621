import { addressSet, ipFamily, parseCidr, parseIPv4, parseIPv6, type AddressSet } from '../ip-syntax.ts';

/**
 * What an IP address means here: whether it is an ordinary public host (the SSRF guard), how a
 * peer's address is written (one form per address), which network it counts as (per-address
 * budgets), and whether a proxy is trusted. The syntax underneath is `src/ip-syntax.ts` (D130).
 */
export { addressSet, ipFamily, parseCidr, type AddressSet, type CidrRange, type IpFamily } from '../ip-syntax.ts';

/** `::ffff:10.0.0.1` → `10.0.0.1`; brackets and a port dropped; IPv6 lowercased; anything that is not an IP address → null. */
export function normaliseAddress(raw: string): string | null {
  let address = raw.trim();
  const bracketed = address.match(/^\[([^\]]+)\](?::\d+)?$/);
  if (bracketed?.[1]) address = bracketed[1];
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(':'));
  const mapped = address.match(/^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i);
  if (mapped?.[1]) address = mapped[1];
  const family = ipFamily(address);
  if (family === 'ipv4') return address;
  if (family === 'ipv6') return address.toLowerCase();
  return null;
}

/** The set of `TRUSTED_PROXIES` entries (validated by the configuration; a bad one here is a bug). */
export function trustedProxySet(entries: string[]): AddressSet {
  return addressSet(
    entries.map((entry) => {
      const range = parseCidr(entry);
      if (!range) throw new Error(`TRUSTED_PROXIES entry "${entry}" is not an IP address or CIDR range`);
      return range;
    }),
  );
}

/**
 * What counts as one client for per-address budgets and limits: an IPv4 address, or an IPv6
 * address's /64 (one subscriber's network: a single host may rotate through all of it).
 */
export function networkOf(address: string): string {
  if (ipFamily(address) !== 'ipv6') return address;
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

type Cidr4 = readonly [base: number, prefix: number];
type Cidr6 = readonly [base: bigint, prefix: number];

/** IANA special-purpose IPv4 blocks: none of them is an ordinary host on the internet. */
const NON_PUBLIC_V4: Cidr4[] = [
  cidr4('0.0.0.0', 8), // "this network"
  cidr4('10.0.0.0', 8),
  cidr4('100.64.0.0', 10), // carrier-grade NAT
  cidr4('127.0.0.0', 8),
  cidr4('169.254.0.0', 16), // link-local, cloud metadata services
  cidr4('172.16.0.0', 12),
  cidr4('192.0.0.0', 24), // IETF protocol assignments
  cidr4('192.0.2.0', 24), // documentation
  cidr4('192.88.99.0', 24), // 6to4 relay anycast
  cidr4('192.168.0.0', 16),
  cidr4('198.18.0.0', 15), // benchmarking
  cidr4('198.51.100.0', 24), // documentation
  cidr4('203.0.113.0', 24), // documentation
  cidr4('224.0.0.0', 4), // multicast
  cidr4('240.0.0.0', 4), // reserved, broadcast
];

/** IPv6 ranges that carry an IPv4 address: judged by the address they carry. */
const IPV4_MAPPED = cidr6('::ffff:0:0', 96);
const NAT64 = cidr6('64:ff9b::', 96);
const SIX_TO_FOUR = cidr6('2002::', 16);
/** Only global unicast is public; within it, these are not. */
const GLOBAL_UNICAST = cidr6('2000::', 3);
const NON_PUBLIC_GLOBAL_V6: Cidr6[] = [
  cidr6('2001::', 23), // IETF protocol assignments, Teredo, ORCHID
  cidr6('2001:db8::', 32), // documentation
  cidr6('3fff::', 20), // documentation
];

/**
 * Whether an IP address (IPv4 dotted quad or IPv6, brackets and zone id tolerated) belongs to an
 * ordinary host on the public internet. Anything unparseable is not public.
 */
export function isPublicAddress(ip: string): boolean {
  const address = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const v4 = parseIPv4(address);
  if (v4 !== null) return isPublicV4(v4);
  const v6 = parseIPv6(address);
  if (v6 === null) return false;
  if (inCidr6(v6, IPV4_MAPPED) || inCidr6(v6, NAT64)) return isPublicV4(Number(v6 & 0xffff_ffffn));
  if (inCidr6(v6, SIX_TO_FOUR)) return isPublicV4(Number((v6 >> 80n) & 0xffff_ffffn));
  return inCidr6(v6, GLOBAL_UNICAST) && !NON_PUBLIC_GLOBAL_V6.some((range) => inCidr6(v6, range));
}

function isPublicV4(value: number): boolean {
  return !NON_PUBLIC_V4.some(([base, prefix]) => Math.floor(value / 2 ** (32 - prefix)) === Math.floor(base / 2 ** (32 - prefix)));
}

function inCidr6(value: bigint, [base, prefix]: Cidr6): boolean {
  const shift = BigInt(128 - prefix);
  return value >> shift === base >> shift;
}

function cidr4(base: string, prefix: number): Cidr4 {
  return [parseIPv4(base)!, prefix];
}

function cidr6(base: string, prefix: number): Cidr6 {
  return [parseIPv6(base)!, prefix];
}
