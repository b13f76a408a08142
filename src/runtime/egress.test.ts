/**
 * Egress: blocked targets. Only 127.0.0.0/8 and ::1 are ever contacted (test/helpers/egress-fixture.ts);
 * every blocked case must leave the canaries at zero connections. Allowed targets, redirects and
 * limits: egress-delivery.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  canary4,
  canary6,
  dialed,
  expectFailure,
  lookups,
  make,
  receiverPort,
  req,
  totalCanaryConnections,
  zone,
} from '../../test/helpers/egress-fixture.js';
import { isBlockedAddress } from './egress.js';

describe('blocked targets: the canary sees zero connections', () => {
  const v4Hosts = [
    '127.0.0.1',
    '127.1',
    '2130706433',
    '0x7f000001',
    '0177.0.0.1',
    '017700000001',
    '0',
    '0.0.0.0',
    '0x7f.1',
    '127.0.0.1.',
    '127.000.000.001',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[::127.0.0.1]',
    '[64:ff9b::7f00:1]',
    '[2002:7f00:1::1]',
    'localhost',
    'LOCALHOST',
    'localhost.',
    'api.localhost',
    'ｌｏｃａｌｈｏｓｔ',
    'evil@127.0.0.1',
    'user:pass@127.0.0.1',
    'evil.test@127.0.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '[fd00::1]',
    '[fe80::1]',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '224.0.0.1',
    '255.255.255.255',
    '240.0.0.1',
  ];
  const v6Hosts = ['[::]', '[::1]', '[0:0:0:0:0:0:0:1]'];

  it.each(v4Hosts)('http://%s:<canary>/ is blocked', async (host) => {
    const before = totalCanaryConnections();
    const dialedBefore = dialed.length;
    const lookupsBefore = lookups.length;
    await expectFailure(make().request(req(`http://${host}:${canary4.port}/x`)), 'blocked', 'blocked: private address');
    // also over https: same decision, before any TLS handshake
    await expectFailure(make().request(req(`https://${host}:${canary4.port}/x`)), 'blocked');
    expect(totalCanaryConnections()).toBe(before);
    expect(dialed.length).toBe(dialedBefore);
    expect(lookups.length).toBe(lookupsBefore); // literals and localhost never reach DNS
  });

  it.each(v6Hosts)('http://%s:<canary6>/ is blocked', async (host) => {
    const port = canary6?.port ?? canary4.port;
    const before = totalCanaryConnections();
    await expectFailure(make().request(req(`http://${host}:${port}/`)), 'blocked', 'blocked: private address');
    expect(totalCanaryConnections()).toBe(before);
  });

  it('a name is blocked if ANY of its addresses is private, and nothing is dialled', async () => {
    zone['mixed.test'] = ['93.184.216.34', '127.0.0.1'];
    zone['mixed6.test'] = ['2606:4700:4700::1111', '::ffff:10.0.0.1'];
    zone['private-first.test'] = ['10.1.2.3', '8.8.8.8'];
    zone['garbage.test'] = ['127.1'];
    const dialedBefore = dialed.length;
    for (const name of ['mixed.test', 'mixed6.test', 'private-first.test', 'garbage.test']) {
      await expectFailure(
        make().request(req(`http://${name}:${canary4.port}/`)),
        'blocked',
        'blocked: private address',
      );
    }
    expect(dialed.length).toBe(dialedBefore);
    expect(totalCanaryConnections()).toBe(0);
  });

  it('an allowed ip:port does not open other ports of the same address', async () => {
    await expectFailure(make().request(req(`http://127.0.0.1:${canary4.port}/`)), 'blocked');
    zone['rcv.test'] = ['127.0.0.1'];
    await expectFailure(make().request(req(`http://rcv.test:${canary4.port}/`)), 'blocked');
    expect(totalCanaryConnections()).toBe(0);
  });

  it('localhost names need their own host:port in the allow-list (an allowed IP is not enough)', async () => {
    zone.localhost = ['127.0.0.1'];
    await expectFailure(make().request(req(`http://localhost:${receiverPort}/echo`)), 'blocked');
    expect(lookups).not.toContain('localhost');
  });

  it.each([
    ['file:///etc/passwd', 'blocked'],
    ['gopher://127.0.0.1:70/_x', 'blocked'],
    ['data:text/plain,hello', 'blocked'],
    ['ftp://example.test/', 'blocked'],
    ['javascript:alert(1)', 'blocked'],
    ['ws://example.test/', 'blocked'],
    ['not a url', 'invalid_url'],
    ['http://', 'invalid_url'],
    ['http://[::1/', 'invalid_url'],
    ['http://[fe80::1%25eth0]/', 'invalid_url'],
    ['//127.0.0.1/', 'invalid_url'],
    ['', 'invalid_url'],
  ] as const)('%s is refused (%s)', async (url, kind) => {
    await expectFailure(make().request(req(url)), kind);
    expect(totalCanaryConnections()).toBe(0);
  });

  it('classifies public and private neighbours correctly', () => {
    expect(isBlockedAddress('172.15.255.255')).toBe(false);
    expect(isBlockedAddress('172.32.0.1')).toBe(false);
    expect(isBlockedAddress('8.8.8.8')).toBe(false);
    expect(isBlockedAddress('172.16.0.0')).toBe(true);
    expect(isBlockedAddress('::ffff:127.0.0.1')).toBe(true);
  });
});

// ---------- allowed targets ----------

describe('canary', () => {
  it('never saw a connection during the whole file', () => {
    expect(canary4.connections).toBe(0);
    expect(canary6?.connections ?? 0).toBe(0);
  });
});
