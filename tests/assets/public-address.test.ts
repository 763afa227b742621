import { describe, expect, test } from 'bun:test';
import { isPublicAddress } from '../../src/lib/ip-address.ts';

describe('isPublicAddress', () => {
  test.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '11.0.0.0',
    '126.255.255.255',
    '128.0.0.1',
    '172.15.255.255',
    '172.32.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
  ])('IPv4 %s is public', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  test.each([
    ['0.0.0.0', 'this network'],
    ['0.1.2.3', 'this network'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.0.1', 'link-local'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.0.0.8', 'IETF assignments'],
    ['192.0.2.1', 'documentation'],
    ['192.88.99.1', '6to4 relay'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
  ])('IPv4 %s is not public (%s)', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  test.each(['2606:4700:4700::1111', '2001:4860:4860::8888', '2a00:1450:4001:830::200e', '2600::', '[2606:4700::1]', '2606:4700:4700:0:0:0:0:1111'])(
    'IPv6 %s is public',
    (ip) => {
      expect(isPublicAddress(ip)).toBe(true);
    },
  );

  test.each([
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback, uncompressed'],
    ['[::1]', 'loopback, bracketed'],
    ['fc00::1', 'unique local'],
    ['fd12:3456:789a::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['FE80::1', 'link-local, upper case'],
    ['fe80::1%eth0', 'link-local with zone'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local (deprecated)'],
    ['ff02::1', 'multicast'],
    ['ff0e::1', 'global multicast'],
    ['100::1', 'discard-only'],
    ['::127.0.0.1', 'IPv4-compatible (deprecated)'],
    ['::ffff:0:7f00:1', 'IPv4-translated'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['2001::1', 'Teredo'],
    ['2001:10::1', 'ORCHID'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
  ])('IPv6 %s is not public (%s)', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  test.each([
    ['::ffff:8.8.8.8', true],
    ['::ffff:808:808', true],
    ['::FFFF:0808:0808', true],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['0:0:0:0:0:ffff:7f00:1', false],
    ['::ffff:10.0.0.1', false],
    ['::ffff:169.254.169.254', false],
    ['::ffff:a9fe:a9fe', false],
    ['::ffff:192.168.0.1', false],
    ['::ffff:0.0.0.0', false],
    ['[::ffff:127.0.0.1]', false],
  ])('IPv4-mapped %s is judged by its IPv4 address (%p)', (ip, expected) => {
    expect(isPublicAddress(ip)).toBe(expected);
  });

  test.each([
    ['64:ff9b::8.8.8.8', true],
    ['64:ff9b::127.0.0.1', false],
    ['64:ff9b::a00:1', false],
    ['2002:808:808::1', true],
    ['2002:7f00:1::1', false],
    ['2002:c0a8:101::', false],
    ['2002:a9fe:a9fe::1', false],
  ])('NAT64 and 6to4 %s are judged by the IPv4 address they carry (%p)', (ip, expected) => {
    expect(isPublicAddress(ip)).toBe(expected);
  });

  test.each([
    '',
    'localhost',
    'example.com',
    '1.2.3',
    '1.2.3.4.5',
    '256.1.1.1',
    '1.2.3.-1',
    '01.2.3.4',
    '0x7f.0.0.1',
    '2130706433',
    ' 8.8.8.8',
    '::g',
    ':::',
    '1::2::3',
    ':1::',
    '1:::2',
    '12345::1',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    '1:2:3:4:5:6:7::8',
    '::ffff:8.8.8',
    '::ffff:8.8.8.8.8',
    '2606:4700::1]',
  ])('%p is not an address, so not public', (input) => {
    expect(isPublicAddress(input)).toBe(false);
  });
});
