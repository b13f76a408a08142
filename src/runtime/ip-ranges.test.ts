import { describe, expect, it } from 'vitest';
import { canonicalAddress, classifyAddress, isBlockedAddress } from './ip-ranges.js';

describe('isBlockedAddress', () => {
  it.each([
    // IPv4 special ranges
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.255', 'carrierGradeNat'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'linkLocal'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'reserved'], // documentation
    ['198.18.0.1', 'reserved'], // benchmarking
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    // IPv6
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::7f00:1', 'ipv4Compatible'],
    ['::808:808', 'ipv4Compatible'],
    ['fe80::1', 'linkLocal'],
    ['febf::1', 'linkLocal'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['100::1', 'discard'],
    ['2001:db8::1', 'reserved'],
    ['3fff::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['::ffff:0:7f00:1', 'rfc6145'],
    // IPv4-mapped: unmapped, then judged as IPv4
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['[::ffff:192.168.0.1]', 'private'],
    // Translation prefixes embedding a blocked IPv4
    ['64:ff9b::7f00:1', 'nat64:loopback'],
    ['64:ff9b::a9fe:a9fe', 'nat64:linkLocal'],
    ['64:ff9b::10.0.0.1', 'nat64:private'],
    ['64:ff9b:1::808:808', 'nat64Local'],
    ['2002:7f00:1::', '6to4:loopback'],
    ['2002:c0a8:101::1', '6to4:private'],
    ['2001:0:7f00:1::808:808', 'teredo:loopback'], // server 127.0.0.1
    ['2001:0:808:808:0:0:f5ff:fffe', 'teredo:private'], // client ~f5ff:fffe = 10.0.0.1
    // Not a canonical literal: blocked, never guessed
    ['127.1', 'invalid'],
    ['0x7f000001', 'invalid'],
    ['2130706433', 'invalid'],
    ['localhost', 'invalid'],
    ['', 'invalid'],
    ['fe80::1%eth0', 'invalid'],
    ['2606:4700::1111%1', 'invalid'],
  ])('%s is blocked (%s)', (ip, why) => {
    expect(classifyAddress(ip)).toBe(why);
    expect(isBlockedAddress(ip)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.15.255.255', // just below 172.16/12
    '172.32.0.1', // just above 172.16/12
    '100.63.255.255', // just below 100.64/10
    '100.128.0.0', // just above 100.64/10
    '169.253.255.255',
    '192.167.255.255',
    '192.169.0.0',
    '223.255.255.255',
    '11.0.0.1',
    '126.255.255.255',
    '128.0.0.1',
    '::ffff:8.8.8.8',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '[2001:4860:4860::8888]',
    '64:ff9b::808:808', // NAT64 of 8.8.8.8 (DNS64 networks)
    '2002:808:808::1', // 6to4 of 8.8.8.8
    '2001:0:808:808:0:0:f7f7:f7f7', // Teredo, server 8.8.8.8, client 8.8.8.8
  ])('%s is public', (ip) => {
    expect(classifyAddress(ip)).toBe('public');
    expect(isBlockedAddress(ip)).toBe(false);
  });
});

describe('canonicalAddress', () => {
  it('unmaps IPv4-mapped IPv6 and compresses IPv6', () => {
    expect(canonicalAddress('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(canonicalAddress('2001:0db8:0000:0000:0000:0000:0000:0001')).toBe('2001:db8::1');
    expect(canonicalAddress('[::1]')).toBe('::1');
    expect(canonicalAddress('8.8.8.8')).toBe('8.8.8.8');
  });
});
