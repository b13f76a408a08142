/**
 * Egress tests. Only 127.0.0.0/8 and ::1 are ever contacted: public-looking names go through an
 * injected lookup, and a guard on net.connect/tls.connect fails any dial outside loopback.
 * Canary servers count TCP connections (the net 'connection' event, not HTTP requests): every
 * blocked case must leave them at zero.
 */
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createEgress,
  EgressError,
  type EgressErrorKind,
  type EgressOptions,
  type EgressRequest,
  HOP_HEADER,
  isBlockedAddress,
} from './egress.js';

// ---------- loopback-only guard on outgoing sockets ----------

const dialed: string[] = [];
const realNetConnect = net.connect;
const realTlsConnect = tls.connect;
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1)$/;

function guardHost(host: unknown): void {
  const h = String(host);
  dialed.push(h);
  if (!LOOPBACK.test(h)) throw new Error(`test guard: refusing to dial ${h}`);
}

// ---------- servers ----------

interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Canary {
  server: http.Server;
  port: number;
  connections: number;
}

async function listen(server: http.Server | net.Server, host: string, port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as net.AddressInfo).port;
}

async function startCanary(host: string): Promise<Canary | undefined> {
  const server = http.createServer((_req, res) => res.end('canary'));
  const canary: Canary = { server, port: 0, connections: 0 };
  server.on('connection', () => {
    canary.connections++;
  });
  try {
    canary.port = await listen(server, host);
  } catch {
    return undefined; // e.g. no IPv6 on this machine
  }
  return canary;
}

async function stop(server: http.Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections?.();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

const timers = new Set<NodeJS.Timeout>();
function later(ms: number, fn: () => void): void {
  const t = setTimeout(() => {
    timers.delete(t);
    fn();
  }, ms);
  timers.add(t);
}

const FIVE_MIB = 5 * 1024 * 1024;
const bigStream = { written: 0, finished: false, closedEarly: false };

/** The receiver: an allowed target that records what it gets and can misbehave on demand. */
function receiverHandler(log: Recorded[]) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      log.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      const to = url.searchParams.get('to');
      switch (url.pathname) {
        case '/echo':
          res.writeHead(201, { 'content-type': 'application/json', 'x-reply': 'yes' });
          res.end(JSON.stringify({ ok: true }));
          return;
        case '/redirect':
          res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: to ?? '/echo' });
          res.end('moved');
          return;
        case '/slow':
          later(3000, () => res.end('late'));
          return;
        case '/stall-body':
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write('partial');
          later(3000, () => res.end('rest'));
          return;
        case '/sized': {
          const n = Number(url.searchParams.get('n'));
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('a'.repeat(n));
          return;
        }
        case '/big-declared':
          res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(FIVE_MIB) });
          res.end(Buffer.alloc(FIVE_MIB, 'b'));
          return;
        case '/big': {
          // 5 MiB, chunked, written with back-pressure so an early client abort is observable.
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          const chunk = Buffer.alloc(64 * 1024, 'c');
          bigStream.written = 0;
          bigStream.finished = false;
          bigStream.closedEarly = false;
          res.on('close', () => {
            if (!bigStream.finished) bigStream.closedEarly = true;
          });
          const pump = () => {
            while (bigStream.written < FIVE_MIB) {
              if (res.destroyed) return;
              bigStream.written += chunk.length;
              if (!res.write(chunk)) {
                res.once('drain', pump);
                return;
              }
            }
            bigStream.finished = true;
            res.end();
          };
          pump();
          return;
        }
        default: {
          const chain = /^\/chain\/(\d+)$/.exec(url.pathname);
          if (chain) {
            const n = Number(chain[1]);
            if (n === 0) res.end('end of chain');
            else {
              res.writeHead(302, { location: `/chain/${n - 1}` });
              res.end();
            }
            return;
          }
          res.writeHead(404);
          res.end();
        }
      }
    });
  };
}

let canary4: Canary;
let canary6: Canary | undefined;
let receiver: http.Server;
let receiverPort: number;
const received: Recorded[] = [];
let other: http.Server;
let otherPort: number;
const receivedOther: Recorded[] = [];
let closedPort: number;

const lookups: string[] = [];
/** Fake DNS: names ending in .test map to fixed answers; anything else fails. No real DNS is used. */
const zone: Record<string, string[]> = {};
const fakeLookup: NonNullable<EgressOptions['lookup']> = async (hostname) => {
  lookups.push(hostname);
  const answers = zone[hostname];
  if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return answers.map((address) => ({ address, family: net.isIPv6(address) ? 6 : 4 }));
};

beforeAll(async () => {
  net.connect = ((...args: unknown[]) => {
    const first = args[0];
    guardHost(
      typeof first === 'object' && first !== null ? ((first as net.TcpNetConnectOpts).host ?? 'localhost') : args[1],
    );
    return (realNetConnect as (...a: unknown[]) => net.Socket).apply(net, args);
  }) as typeof net.connect;
  tls.connect = ((...args: unknown[]) => {
    const first = args[0];
    guardHost(typeof first === 'object' && first !== null ? (first as tls.ConnectionOptions).host : args[1]);
    return (realTlsConnect as (...a: unknown[]) => tls.TLSSocket).apply(tls, args);
  }) as typeof tls.connect;

  const c4 = await startCanary('127.0.0.1');
  if (!c4) throw new Error('cannot listen on 127.0.0.1');
  canary4 = c4;
  canary6 = await startCanary('::1');

  receiver = http.createServer(receiverHandler(received));
  receiverPort = await listen(receiver, '127.0.0.1');
  other = http.createServer(receiverHandler(receivedOther));
  otherPort = await listen(other, '127.0.0.1');

  const probe = net.createServer();
  closedPort = await listen(probe as unknown as http.Server, '127.0.0.1');
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});

afterAll(async () => {
  for (const t of timers) clearTimeout(t);
  await Promise.all([stop(canary4?.server), stop(canary6?.server), stop(receiver), stop(other)]);
  net.connect = realNetConnect;
  tls.connect = realTlsConnect;
});

const egresses: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(egresses.splice(0).map((e) => e.close()));
});

function make(opts: Partial<EgressOptions> = {}) {
  const e = createEgress({
    allowTargets: [`127.0.0.1:${receiverPort}`, `127.0.0.1:${otherPort}`, `127.0.0.1:${closedPort}`],
    lookup: fakeLookup,
    ...opts,
  });
  egresses.push(e);
  return e;
}

function req(url: string, extra: Partial<EgressRequest> = {}): EgressRequest {
  return { url, method: 'GET', headers: {}, timeoutMs: 2000, ...extra };
}

async function failure(p: Promise<unknown>): Promise<EgressError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(EgressError);
    return err as EgressError;
  }
  throw new Error('expected the request to fail');
}

async function expectFailure(p: Promise<unknown>, kind: EgressErrorKind, message?: string): Promise<void> {
  const err = await failure(p);
  expect(err.kind).toBe(kind);
  if (message !== undefined) expect(err.message).toBe(message);
}

function totalCanaryConnections(): number {
  return canary4.connections + (canary6?.connections ?? 0);
}

// ---------- blocked targets ----------

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

describe('allowed targets', () => {
  it('delivers method, headers and body; drops hop-by-hop headers', async () => {
    received.length = 0;
    const res = await make().request(
      req(`http://127.0.0.1:${receiverPort}/echo?q=1#frag`, {
        method: 'post',
        headers: {
          'X-Token': 'abc',
          'content-type': 'application/json',
          [HOP_HEADER]: '2',
          Host: 'evil.example',
          connection: 'close, x-token',
          'content-length': '9999',
          'transfer-encoding': 'chunked',
        },
        body: '{"hello":"world"}',
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toBe('{"ok":true}');
    expect(res.contentType).toBe('application/json');
    expect(res.headers['x-reply']).toBe('yes');
    expect(res.url).toBe(`http://127.0.0.1:${receiverPort}/echo?q=1`);
    expect(received).toHaveLength(1);
    const got = received[0];
    expect(got.method).toBe('POST');
    expect(got.url).toBe('/echo?q=1');
    expect(got.body).toBe('{"hello":"world"}');
    expect(got.headers['x-token']).toBe('abc');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers[HOP_HEADER]).toBe('2');
    expect(got.headers.host).toBe(`127.0.0.1:${receiverPort}`);
    expect(got.headers['content-length']).toBe(String(Buffer.byteLength('{"hello":"world"}')));
    expect(got.headers['transfer-encoding']).toBeUndefined();
  });

  it('a name is dialled at the address it resolved to, with Host = the name, looked up once', async () => {
    received.length = 0;
    zone['hooks.example.test'] = ['127.0.0.1'];
    const lookupsBefore = lookups.length;
    const dialedBefore = dialed.length;
    const res = await make().request(req(`http://hooks.example.test:${receiverPort}/echo`));
    expect(res.status).toBe(201);
    expect(received[0].headers.host).toBe(`hooks.example.test:${receiverPort}`);
    expect(lookups.slice(lookupsBefore)).toEqual(['hooks.example.test']);
    expect(dialed.slice(dialedBefore)).toEqual(['127.0.0.1']);
  });

  it('host:port in the allow-list trusts the name (also localhost), matched case-insensitively', async () => {
    received.length = 0;
    zone['internal.test'] = ['127.0.0.1'];
    zone.localhost = ['127.0.0.1'];
    const e = make({ allowTargets: [`INTERNAL.test:${receiverPort}`, `localhost:${receiverPort}`] });
    expect((await e.request(req(`http://internal.test.:${receiverPort}/echo`))).status).toBe(201);
    expect((await e.request(req(`http://LocalHost:${receiverPort}/echo`))).status).toBe(201);
    expect(received.map((r) => r.headers.host)).toEqual([
      `internal.test.:${receiverPort}`,
      `localhost:${receiverPort}`,
    ]);
    // the IP itself is not listed
    await expectFailure(e.request(req(`http://127.0.0.1:${receiverPort}/echo`)), 'blocked');
  });

  it('allow-list entries are normalized like URLs', async () => {
    const e = make({ allowTargets: [` 127.1:${receiverPort} `, ''] });
    expect((await e.request(req(`http://0x7f000001:${receiverPort}/echo`))).status).toBe(201);
    expect(() => createEgress({ allowTargets: ['127.0.0.1'] })).toThrow(TypeError);
    expect(() => createEgress({ allowTargets: ['127.0.0.1:99999'] })).toThrow(TypeError);
    expect(() => createEgress({ allowTargets: ['a/b:80'] })).toThrow(TypeError);
  });

  it('default ports are made explicit for matching', async () => {
    // nothing listens on :80 here; being allowed means we get past the check and fail to connect
    const e = make({ allowTargets: ['10.9.9.9:80'] });
    const err = await failure(e.request(req('http://10.9.9.9/')));
    // the test guard threw at dial time: the check let it through to port 80
    expect([err.kind, err.message]).toEqual(['network', 'network error']);
    expect(dialed).toContain('10.9.9.9');
    dialed.splice(dialed.indexOf('10.9.9.9'), 1);
    await expectFailure(e.request(req('http://10.9.9.9:8080/')), 'blocked');
  });

  it('IPv6 allow-list entries in brackets', async () => {
    if (!canary6) return;
    const server6 = http.createServer((_q, s) => s.end('six'));
    const port6 = await listen(server6, '::1');
    try {
      const e = make({ allowTargets: [`[0::1]:${port6}`] });
      const res = await e.request(req(`http://[::1]:${port6}/`));
      expect(res.body).toBe('six');
    } finally {
      await stop(server6);
    }
  });

  it('HEAD returns no body; non-2xx is an answer, not an error', async () => {
    const e = make();
    const head = await e.request(req(`http://127.0.0.1:${receiverPort}/echo`, { method: 'HEAD' }));
    expect(head.status).toBe(201);
    expect(head.body).toBe('');
    const missing = await e.request(req(`http://127.0.0.1:${receiverPort}/nope`));
    expect(missing.status).toBe(404);
  });

  it('refuses CR/LF in headers and odd methods', async () => {
    const e = make();
    const url = `http://127.0.0.1:${receiverPort}/echo`;
    await expectFailure(
      e.request(req(url, { headers: { 'x-a': 'a\r\nx-injected: 1' } })),
      'blocked',
      'blocked: invalid header',
    );
    await expectFailure(e.request(req(url, { headers: { 'x-a': 'a\nb' } })), 'blocked', 'blocked: invalid header');
    await expectFailure(e.request(req(url, { headers: { 'x a': 'b' } })), 'blocked', 'blocked: invalid header');
    await expectFailure(e.request(req(url, { method: 'CONNECT' })), 'blocked', 'blocked: method not allowed');
    await expectFailure(e.request(req(url, { method: 'GE T' })), 'blocked', 'blocked: method not allowed');
  });

  it('reports refused connections and DNS failures with short messages', async () => {
    await expectFailure(make().request(req(`http://127.0.0.1:${closedPort}/`)), 'network', 'connection refused');
    await expectFailure(make().request(req('http://nowhere.test/')), 'network', 'dns lookup failed');
  });
});

// ---------- redirects ----------

describe('redirects', () => {
  const base = () => `http://127.0.0.1:${receiverPort}`;
  const redirect = (to: string, status = 302) => `${base()}/redirect?status=${status}&to=${encodeURIComponent(to)}`;

  it('a redirect from an allowed target to the canary is blocked; the canary sees nothing', async () => {
    const e = make();
    for (const to of [
      `http://127.0.0.1:${canary4.port}/`,
      `http://127.1:${canary4.port}/`,
      `http://localhost:${canary4.port}/`,
      `http://[::ffff:127.0.0.1]:${canary4.port}/`,
      `//0.0.0.0:${canary4.port}/`,
      `http://169.254.169.254/latest/meta-data/`,
    ]) {
      for (const status of [301, 302, 303, 307, 308]) {
        await expectFailure(e.request(req(redirect(to, status))), 'blocked', 'blocked: private address');
      }
    }
    zone['rebind.test'] = ['8.8.8.8', '127.0.0.1'];
    await expectFailure(e.request(req(redirect(`http://rebind.test:${canary4.port}/`))), 'blocked');
    await expectFailure(e.request(req(redirect('file:///etc/passwd'))), 'blocked', 'blocked: scheme not allowed');
    await expectFailure(e.request(req(redirect('http://[::1'))), 'invalid_url');
    expect(totalCanaryConnections()).toBe(0);
  });

  it('follows allowed hops; 303 (and 301/302 after POST) become GET without body, 307/308 keep them', async () => {
    const e = make();
    const post = { method: 'POST', body: 'payload', headers: { 'content-type': 'text/plain' } };
    for (const [status, method, body] of [
      [303, 'GET', ''],
      [302, 'GET', ''],
      [301, 'GET', ''],
      [307, 'POST', 'payload'],
      [308, 'POST', 'payload'],
    ] as const) {
      received.length = 0;
      const res = await e.request(req(redirect('/echo', status), post));
      expect(res.status).toBe(201);
      expect(res.url).toBe(`${base()}/echo`);
      const last = received[received.length - 1];
      expect([status, last.method, last.body]).toEqual([status, method, body]);
      expect(last.headers['content-type']).toBe(method === 'GET' ? undefined : 'text/plain');
    }
    received.length = 0;
    await e.request(req(redirect('/echo', 302), { method: 'PUT', body: 'x' }));
    expect(received[1].method).toBe('PUT');
  });

  it('caps the number of redirects', async () => {
    const e = make({ maxRedirects: 3 });
    expect((await e.request(req(`${base()}/chain/3`))).body).toBe('end of chain');
    await expectFailure(e.request(req(`${base()}/chain/4`)), 'network', 'too many redirects');
    const none = make({ maxRedirects: 0 });
    await expectFailure(none.request(req(`${base()}/chain/1`)), 'network', 'too many redirects');
  });

  it('drops credentials when a redirect changes origin', async () => {
    received.length = 0;
    receivedOther.length = 0;
    const headers = { authorization: 'Bearer s3cret', cookie: 'a=b', 'x-keep': '1' };
    const e = make();
    await e.request(req(redirect(`http://127.0.0.1:${otherPort}/echo`), { headers }));
    expect(receivedOther[0].headers.authorization).toBeUndefined();
    expect(receivedOther[0].headers.cookie).toBeUndefined();
    expect(receivedOther[0].headers['x-keep']).toBe('1');
    await e.request(req(redirect('/echo'), { headers }));
    expect(received[received.length - 1].headers.authorization).toBe('Bearer s3cret');
  });
});

// ---------- time and size ----------

describe('limits', () => {
  it('times out a slow answer well before it arrives', async () => {
    const started = Date.now();
    await expectFailure(
      make().request(req(`http://127.0.0.1:${receiverPort}/slow`, { timeoutMs: 300 })),
      'timeout',
      'timeout after 300 ms',
    );
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('the timeout covers the body too', async () => {
    const started = Date.now();
    await expectFailure(
      make().request(req(`http://127.0.0.1:${receiverPort}/stall-body`, { timeoutMs: 300 })),
      'timeout',
      'timeout after 300 ms',
    );
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('the timeout covers a DNS lookup that never answers', async () => {
    const started = Date.now();
    const e = make({ lookup: () => new Promise(() => {}) });
    await expectFailure(e.request(req('http://hang.test/', { timeoutMs: 200 })), 'timeout', 'timeout after 200 ms');
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it("the caller's signal aborts", async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    await expectFailure(
      make().request(req(`http://127.0.0.1:${receiverPort}/slow`, { signal: ac.signal })),
      'timeout',
      'aborted',
    );
  });

  it('a streamed 5 MiB answer is refused past the cap and the stream is cut off', async () => {
    const cap = 256 * 1024;
    const buffersBefore = process.memoryUsage().arrayBuffers;
    await expectFailure(
      make({ maxBodyBytes: cap }).request(req(`http://127.0.0.1:${receiverPort}/big`)),
      'too_large',
      'response too large',
    );
    await new Promise((r) => setTimeout(r, 100));
    expect(bigStream.closedEarly).toBe(true);
    expect(bigStream.finished).toBe(false);
    expect(bigStream.written).toBeLessThan(FIVE_MIB);
    // coarse: nothing close to 5 MiB was retained (Buffers live outside the JS heap)
    expect(process.memoryUsage().arrayBuffers - buffersBefore).toBeLessThan(4 * 1024 * 1024);
  });

  it('a declared Content-Length above the cap is refused before reading', async () => {
    await expectFailure(
      make({ maxBodyBytes: 1024 }).request(req(`http://127.0.0.1:${receiverPort}/big-declared`)),
      'too_large',
    );
  });

  it('an answer up to the cap is kept whole', async () => {
    const e = make({ maxBodyBytes: 1000 });
    expect((await e.request(req(`http://127.0.0.1:${receiverPort}/sized?n=1000`))).body).toHaveLength(1000);
    await expectFailure(e.request(req(`http://127.0.0.1:${receiverPort}/sized?n=1001`)), 'too_large');
  });

  it('close() ends in-flight requests and refuses new ones', async () => {
    const e = createEgress({ allowTargets: [`127.0.0.1:${receiverPort}`] });
    const pending = e.request(req(`http://127.0.0.1:${receiverPort}/slow`, { timeoutMs: 5000 }));
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await e.close();
    const err = await failure(pending);
    expect(err.kind).toBe('network');
    expect(Date.now() - started).toBeLessThan(1000);
    await expectFailure(e.request(req(`http://127.0.0.1:${receiverPort}/echo`)), 'network', 'egress closed');
  });
});

describe('canary', () => {
  it('never saw a connection during the whole file', () => {
    expect(canary4.connections).toBe(0);
    expect(canary6?.connections ?? 0).toBe(0);
  });
});
