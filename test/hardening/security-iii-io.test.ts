/**
 * Security III (issue 34), what crosses the wire: record mode against a gzip bomb and its limits,
 * headers named in MOCKYARD_REDACT_HEADERS, and the request-log streams' caps — each over HTTP against
 * the real server, on loopback only (SECURITY.md names the test of each attack).
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { expectError } from '../helpers/expect.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** 256 MiB of zeros, gzipped (about 260 KB), made a MiB at a time. */
async function gzipBomb(): Promise<Buffer> {
  const gz = zlib.createGzip({ level: 9 });
  const chunks: Buffer[] = [];
  gz.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((r) => gz.on('end', r));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < 256; i++) if (!gz.write(zeros)) await new Promise((r) => gz.once('drain', r));
  gz.end();
  await done;
  return Buffer.concat(chunks);
}

describe('Security III: record mode', () => {
  let upstream: http.Server;
  let s: TestServer;
  let bomb: Buffer;
  beforeAll(async () => {
    bomb = await gzipBomb();
    upstream = http.createServer((req, res) => {
      if (req.url === '/bomb') {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        res.end(bomb);
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`upstream ${req.url}`);
      }
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const port = (upstream.address() as AddressInfo).port;
    s = await startTestServer('sqlite', { allowTargets: [`127.0.0.1:${port}`] });
  });
  afterAll(async () => {
    await s?.close();
    upstream?.close();
  });

  async function recording() {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    await c.api('PATCH', `/api/projects/${p.id}`, { fallbackUrl: url, recording: true }, u.token);
    return { c, u, p };
  }

  test('attack 8: a 260 KB gzip answer of 256 MiB is passed through, not inflated past 16 MiB, not recorded', async () => {
    const { c, u, p } = await recording();
    const before = process.memoryUsage().arrayBuffers;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().arrayBuffers);
    }, 2);
    try {
      const raw = await new Promise<{ status: number; bytes: number }>((resolve, reject) => {
        http
          .get(`${s.running.url}/m/${p.id}/bomb`, (res) => {
            let bytes = 0;
            res.on('data', (d: Buffer) => {
              bytes += d.length;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
          })
          .on('error', reject);
      });
      expect(raw).toEqual({ status: 200, bytes: bomb.length });
      await s.running.recorder.settled();
    } finally {
      clearInterval(sampler);
    }
    expect(peak - before).toBeLessThan(64 * 1024 * 1024);
    expect((await c.api('GET', `/api/projects/${p.id}/endpoints`, undefined, u.token)).json).toEqual([]);
    // the request log says why it was not recorded
    let entry: { warning?: string; proxied?: boolean } | undefined;
    for (let i = 0; i < 100 && !entry; i++) {
      entry = (await c.api('GET', `/api/projects/${p.id}/requests`, undefined, u.token)).json[0];
      if (!entry) await new Promise((r) => setTimeout(r, 20));
    }
    expect(entry).toMatchObject({ proxied: true, warning: expect.stringMatching(/^not recorded: .*16777216 bytes/) });
  });

  test('attack 12: a recorded literal /* stays a literal path, never a catch-all', async () => {
    const { c, u, p } = await recording();
    expect((await c.mock(p.id, 'GET', '/*')).text).toBe('upstream /*');
    await s.running.recorder.settled();
    await c.api('PATCH', `/api/projects/${p.id}`, { recording: false }, u.token);
    const endpoints = (await c.api('GET', `/api/projects/${p.id}/endpoints`, undefined, u.token)).json;
    expect(endpoints.map((e: { path: string }) => e.path)).toEqual(['/%2A']);
    // the recording answers its own path; any other path still goes to the fallback
    expect((await c.mock(p.id, 'GET', '/*')).text).toBe('upstream /*');
    expect((await c.mock(p.id, 'GET', '/other')).text).toBe('upstream /other');
  });
});

describe('Security III: headers named in MOCKYARD_REDACT_HEADERS', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite', { redactHeaders: ['x-api-key', 'x-session-secret'] });
  });
  afterAll(() => s.close());

  test('attack 13: are stored and listed as [redacted], as Authorization and Cookie are; others are kept', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'GET', path: '/who' });
    await c.mock(f.pid, 'GET', '/who', {
      headers: { 'x-api-key': 'k-123', 'X-Session-Secret': 's-456', cookie: 'c=1', 'x-tier': 'vip' },
    });
    const log = (await c.api('GET', `/api/projects/${f.pid}/requests`, undefined, f.token)).json;
    expect(log[0].headers).toMatchObject({
      'x-api-key': '[redacted]',
      'x-session-secret': '[redacted]',
      cookie: '[redacted]',
      'x-tier': 'vip',
    });
    expect(JSON.stringify(log)).not.toMatch(/k-123|s-456/);
  });
});

describe('Security III: request-log streams', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
  });
  afterAll(() => s.close());

  /** Opens a stream on a raw socket; the socket is paused (it reads nothing) until `resume`. */
  function openRaw(pid: string, token: string) {
    const sock = net.connect(s.running.port, '127.0.0.1');
    sock.write(
      `GET /api/projects/${pid}/requests/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`,
    );
    let received = 0;
    let head = '';
    const ended = new Promise<void>((r) => sock.on('close', () => r()));
    sock.on('data', (d: Buffer) => {
      if (received < 200) head += d.toString('latin1');
      received += d.length;
    });
    sock.on('error', () => {});
    return { sock, ended, received: () => received, head: () => head };
  }

  test('attack 9a: the 11th open stream of a user is 429; closing one frees a place', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'GET', path: '/x' });
    const streams = Array.from({ length: 10 }, () => openRaw(f.pid, f.token));
    const poll = async (cond: () => boolean) => {
      const deadline = Date.now() + 5000;
      while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    };
    await poll(() => streams.every((x) => x.head().includes(': connected')));
    for (const x of streams) expect(x.head()).toMatch(/^HTTP\/1\.1 200/);
    const eleventh = await c.api('GET', `/api/projects/${f.pid}/requests/stream`, undefined, f.token);
    expectError(eleventh, 429, 'rate_limited');
    streams[0].sock.destroy();
    let again = openRaw(f.pid, f.token);
    await poll(() => again.head().length > 12);
    for (let i = 0; i < 50 && !again.head().startsWith('HTTP/1.1 200'); i++) {
      // the server sees the first socket close a moment later
      again.sock.destroy();
      await new Promise((r) => setTimeout(r, 20));
      again = openRaw(f.pid, f.token);
      await poll(() => again.head().length > 12);
    }
    expect(again.head()).toMatch(/^HTTP\/1\.1 200/);
    for (const x of [...streams, again]) x.sock.destroy();
  });

  test('attack 9b: a stream whose client does not read is closed once 1 MiB is queued for it', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'POST', path: '/big' });
    const slow = openRaw(f.pid, f.token);
    const deadline = Date.now() + 5000;
    while (!slow.head().includes(': connected') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    slow.sock.pause();
    const body = 'x'.repeat(60 * 1024);
    // ~12 MB of entries: more than the socket buffers of loopback hold
    for (let i = 0; i < 200; i++) await c.mock(f.pid, 'POST', '/big', { body });
    slow.sock.resume();
    const closed = await Promise.race([
      slow.ended.then(() => true),
      new Promise((r) => setTimeout(() => r(false), 10_000)),
    ]);
    expect(closed).toBe(true);
    expect(slow.received()).toBeLessThan(200 * body.length);
  });
});
