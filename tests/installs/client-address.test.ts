import { describe, expect, test } from 'bun:test';
import { createClientAddressResolver } from '../../src/http/client-address.ts';
import { normaliseAddress, trustedProxySet } from '../../src/lib/ip-address.ts';

const request = (forwarded?: string) =>
  new Request('http://localhost/', forwarded === undefined ? {} : { headers: { 'x-forwarded-for': forwarded } });
const peer = (address: string) => ({ requestIP: () => ({ address }) });

describe('client address', () => {
  test('without a server (app.handle) the peer is 127.0.0.1', () => {
    expect(createClientAddressResolver([])(request(), null)).toBe('127.0.0.1');
  });

  test('without trusted proxies, X-Forwarded-For is ignored', () => {
    const resolve = createClientAddressResolver([]);
    expect(resolve(request('203.0.113.7'), peer('198.51.100.1'))).toBe('198.51.100.1');
  });

  test('from an untrusted peer, X-Forwarded-For is ignored', () => {
    const resolve = createClientAddressResolver(['10.0.0.0/8']);
    expect(resolve(request('203.0.113.7'), peer('198.51.100.1'))).toBe('198.51.100.1');
  });

  test('from a trusted peer, the rightmost untrusted hop is the client', () => {
    const resolve = createClientAddressResolver(['10.0.0.0/8', '192.168.1.1']);
    expect(resolve(request('203.0.113.7'), peer('10.0.0.5'))).toBe('203.0.113.7');
    expect(resolve(request('1.1.1.1, 203.0.113.7, 192.168.1.1'), peer('10.0.0.5'))).toBe('203.0.113.7');
    expect(resolve(request('1.1.1.1,203.0.113.7 , 10.9.9.9'), peer('10.0.0.5'))).toBe('203.0.113.7');
  });

  test('a trusted peer without the header is itself the client', () => {
    expect(createClientAddressResolver(['10.0.0.0/8'])(request(), peer('10.0.0.5'))).toBe('10.0.0.5');
  });

  test('when every hop is trusted, the leftmost is the client', () => {
    expect(createClientAddressResolver(['10.0.0.0/8'])(request('10.0.0.1, 10.0.0.2'), peer('10.0.0.3'))).toBe('10.0.0.1');
  });

  test('a garbled entry stops the walk at the last trusted hop', () => {
    const resolve = createClientAddressResolver(['10.0.0.0/8']);
    expect(resolve(request('203.0.113.7, not-an-ip, 10.0.0.2'), peer('10.0.0.3'))).toBe('10.0.0.2');
    expect(resolve(request('unknown'), peer('10.0.0.3'))).toBe('10.0.0.3');
  });

  test('IPv6: ranges, lowercase, and IPv4-mapped peers match IPv4 ranges', () => {
    const resolve = createClientAddressResolver(['fd00::/8', '127.0.0.1']);
    expect(resolve(request('2001:DB8::1'), peer('fd12:3456::1'))).toBe('2001:db8::1');
    expect(resolve(request('2001:db8::2'), peer('::ffff:127.0.0.1'))).toBe('2001:db8::2');
    expect(resolve(request('2001:db8::3'), peer('fe80::1'))).toBe('fe80::1');
  });

  test('ports and brackets in X-Forwarded-For entries are dropped', () => {
    const resolve = createClientAddressResolver(['10.0.0.0/8']);
    expect(resolve(request('203.0.113.7:51234'), peer('10.0.0.3'))).toBe('203.0.113.7');
    expect(resolve(request('[2001:db8::5]:443'), peer('10.0.0.3'))).toBe('2001:db8::5');
  });

  test('normaliseAddress', () => {
    expect(normaliseAddress('::FFFF:192.0.2.1')).toBe('192.0.2.1');
    expect(normaliseAddress(' 192.0.2.1 ')).toBe('192.0.2.1');
    expect(normaliseAddress('999.1.1.1')).toBeNull();
    expect(normaliseAddress('')).toBeNull();
  });

  test.each(['10.0.0.0/33', 'fd00::/129', 'example.com', '10.0.0.0/x', ''])('TRUSTED_PROXIES entry %p is refused', (entry) => {
    expect(() => trustedProxySet([entry])).toThrow(/TRUSTED_PROXIES/);
  });
});
