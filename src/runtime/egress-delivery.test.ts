/**
 * Egress: what an allowed target gets (method, headers, body, hop-by-hop headers dropped, names dialled
 * at the address they resolved to), redirects (blocked hops, method changes, caps, credentials) and
 * limits (timeouts, answer caps, close). Only loopback is contacted (test/helpers/egress-fixture.ts), and
 * the canaries see no connection during the whole file.
 */
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  bigStream,
  canary4,
  canary6,
  closedPort,
  dialed,
  expectFailure,
  FIVE_MIB,
  failure,
  listen,
  lookups,
  make,
  otherPort,
  received,
  receivedOther,
  receiverPort,
  req,
  stop,
  totalCanaryConnections,
  zone,
} from '../../test/helpers/egress-fixture.js';
import { createEgress, HOP_HEADER } from './egress.js';

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
