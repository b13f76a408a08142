/**
 * Fallback proxy: a mock request that matches no endpoint of a project with a `fallbackUrl` is
 * forwarded (method, path, query, headers minus hop-by-hop, body) through the SSRF-safe egress, and
 * the target's answer is returned as is and logged with `proxied: true`. Private targets outside
 * MOCKYARD_ALLOW_TARGETS are refused (502 bad_gateway) before any connection.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { freePort, sleep, startTestServer, type TestServer } from '../helpers/server.js';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A local upstream that records what reaches it and answers by path. */
async function upstream() {
  const seen: Seen[] = [];
  let connections = 0;
  const BINARY = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const path = (req.url ?? '').split('?')[0];
      if (path.endsWith('/binary')) {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end(BINARY);
      } else if (path.endsWith('/gzip')) {
        const text = JSON.stringify({ zipped: 'é'.repeat(100) });
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', vary: 'accept-encoding' });
        res.end(zlib.gzipSync(text));
      } else if (path.endsWith('/redirect')) {
        res.writeHead(302, { location: '/elsewhere', 'content-type': 'text/plain' });
        res.end('moved');
      } else {
        res.writeHead(path.endsWith('/missing') ? 404 : 201, {
          'content-type': 'application/vnd.test+json',
          'x-upstream': 'yes',
        });
        res.end(req.method === 'HEAD' ? undefined : JSON.stringify({ echo: body.toString('utf8'), url: req.url }));
      }
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    seen,
    BINARY,
    connections: () => connections,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A raw node:http request, so hop-by-hop headers that fetch refuses can be sent. */
function raw(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: Buffer | string },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? 'GET', headers: opts.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.setTimeout(20_000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(opts.body);
  });
}

for (const dialect of DIALECTS) {
  describe(`fallback proxy (${dialect})`, () => {
    let s: TestServer;
    let up: Awaited<ReturnType<typeof upstream>>;
    let blocked: Awaited<ReturnType<typeof upstream>>;
    let selfPort: number;

    beforeAll(async () => {
      up = await upstream();
      blocked = await upstream();
      selfPort = await freePort();
      s = await startTestServer(dialect, {
        port: selfPort,
        allowTargets: [`127.0.0.1:${up.port}`, `127.0.0.1:${selfPort}`],
      });
    });
    afterAll(async () => {
      await s?.close();
      await up?.close();
      await blocked?.close();
    });

    async function projectWithFallback(fallbackUrl: string) {
      const u = await s.client.fixture({ method: 'GET', path: '/local', responseBody: 'local' });
      const r = await s.client.api('PATCH', `/api/projects/${u.pid}`, { fallbackUrl }, u.token);
      expect(r.status).toBe(200);
      expect(r.json.fallbackUrl).toBe(fallbackUrl);
      return u;
    }

    async function logOf(token: string, pid: string, n: number) {
      for (let i = 0; i < 100; i++) {
        const r = await s.client.api('GET', `/api/projects/${pid}/requests`, undefined, token);
        if (r.json.length >= n) return r.json;
        await sleep(50);
      }
      throw new Error('request log entries did not arrive');
    }

    it('forwards method, path, query, headers (minus hop-by-hop) and body, and returns the answer', async () => {
      const u = await projectWithFallback(`http://127.0.0.1:${up.port}/base/`);
      const before = up.seen.length;
      const r = await raw(`${s.client.base}/m/${u.pid}/orders/42?a=1&b=two%20words&a=3`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-custom': 'kept',
          authorization: 'Bearer upstream-token',
          connection: 'keep-alive, x-private-hop',
          'x-private-hop': 'dropped',
          'keep-alive': 'timeout=5',
          'proxy-connection': 'keep-alive',
          te: 'trailers',
          trailer: 'x-checksum',
        },
        body: '{"n":1}',
      });
      expect(r.status).toBe(201);
      expect(r.headers['content-type']).toBe('application/vnd.test+json');
      expect(r.headers['x-upstream']).toBe('yes');
      expect(r.headers['access-control-allow-origin']).toBe('*');
      expect(JSON.parse(r.body.toString())).toEqual({ echo: '{"n":1}', url: '/base/orders/42?a=1&b=two%20words&a=3' });

      expect(up.seen.length).toBe(before + 1);
      const got = up.seen[before];
      expect(got.method).toBe('POST');
      expect(got.url).toBe('/base/orders/42?a=1&b=two%20words&a=3');
      expect(got.body.toString()).toBe('{"n":1}');
      expect(got.headers['x-custom']).toBe('kept');
      expect(got.headers.authorization).toBe('Bearer upstream-token');
      expect(got.headers['content-type']).toBe('application/json');
      expect(got.headers.host).toBe(`127.0.0.1:${up.port}`);
      for (const h of ['x-private-hop', 'keep-alive', 'proxy-connection', 'te', 'trailer']) {
        expect([h, got.headers[h]]).toEqual([h, undefined]);
      }

      const [entry] = await logOf(u.token, u.pid, 1);
      expect(entry).toMatchObject({
        method: 'POST',
        path: '/orders/42',
        query: 'a=1&b=two%20words&a=3',
        proxied: true,
        statusCode: 201,
        endpointId: null,
      });
    });

    it('serves matching endpoints itself and forwards GET and HEAD without a body', async () => {
      const u = await projectWithFallback(`http://127.0.0.1:${up.port}`);
      const before = up.seen.length;
      const local = await s.client.mock(u.pid, 'GET', '/local');
      expect([local.status, local.text]).toEqual([200, 'local']);
      expect(up.seen.length).toBe(before);

      const missing = await s.client.mock(u.pid, 'GET', '/nope/missing');
      expect(missing.status).toBe(404);
      expect(missing.json).toEqual({ echo: '', url: '/nope/missing' });
      const head = await s.client.mock(u.pid, 'HEAD', '/anything');
      expect(head.status).toBe(201);
      expect(head.text).toBe('');
      expect(up.seen.slice(before).map((x) => [x.method, x.url, x.body.length])).toEqual([
        ['GET', '/nope/missing', 0],
        ['HEAD', '/anything', 0],
      ]);
      const log = await logOf(u.token, u.pid, 3);
      expect(log.map((e: { proxied?: boolean; statusCode: number }) => [e.proxied ?? false, e.statusCode])).toEqual([
        [true, 201],
        [true, 404],
        [false, 200],
      ]);
    });

    it('passes binary and compressed answers through unchanged, and redirects back to the client', async () => {
      const u = await projectWithFallback(`http://127.0.0.1:${up.port}`);
      const bin = await raw(`${s.client.base}/m/${u.pid}/binary`, {});
      expect(bin.status).toBe(200);
      expect(bin.headers['content-type']).toBe('application/octet-stream');
      expect(bin.body.equals(up.BINARY)).toBe(true);

      const upload = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3]);
      const before = up.seen.length;
      await raw(`${s.client.base}/m/${u.pid}/upload`, {
        method: 'PUT',
        headers: { 'content-type': 'application/octet-stream' },
        body: upload,
      });
      expect(up.seen[before].body.equals(upload)).toBe(true);

      // fetch asks for gzip and decodes it: the bytes and their encoding must arrive as sent
      const zipped = await s.client.mock(u.pid, 'GET', '/gzip');
      expect(zipped.status).toBe(200);
      expect(zipped.json).toEqual({ zipped: 'é'.repeat(100) });

      const moved = await raw(`${s.client.base}/m/${u.pid}/redirect`, {});
      expect(moved.status).toBe(302);
      expect(moved.headers.location).toBe('/elsewhere');
      expect(moved.body.toString()).toBe('moved');
    });

    it('refuses a private target outside the allow list before connecting: 502 bad_gateway', async () => {
      for (const host of [
        `127.0.0.1:${blocked.port}`,
        `localhost:${blocked.port}`,
        `[::ffff:127.0.0.1]:${blocked.port}`,
      ]) {
        const u = await projectWithFallback(`http://${host}/`);
        const r = await s.client.mock(u.pid, 'GET', '/anything');
        expect([host, r.status, r.json?.error?.code]).toEqual([host, 502, 'bad_gateway']);
        expect(r.headers.get('access-control-allow-origin')).toBe('*');
        const [entry] = await logOf(u.token, u.pid, 1);
        expect(entry).toMatchObject({ proxied: true, statusCode: 502 });
      }
      expect(blocked.connections()).toBe(0);
      expect(blocked.seen).toEqual([]);
    });

    it('answers 502 when an allowed target does not answer, and stops a fallback loop', async () => {
      const down = await freePort();
      const u = await projectWithFallback(`http://127.0.0.1:${down}`);
      const r = await s.client.mock(u.pid, 'GET', '/x');
      expect([r.status, r.json.error.code]).toEqual([502, 'bad_gateway']);

      // a project whose fallback is itself: the hop counter ends the loop
      const loop = await s.client.fixture();
      await s.client.api(
        'PATCH',
        `/api/projects/${loop.pid}`,
        { fallbackUrl: `http://127.0.0.1:${selfPort}/m/${loop.pid}` },
        loop.token,
      );
      const looped = await s.client.mock(loop.pid, 'GET', '/round');
      expect(looped.status).toBe(502);
      expect(looped.json.error.code).toBe('bad_gateway');
      const log = await logOf(loop.token, loop.pid, 4);
      expect(log.length).toBeLessThanOrEqual(10);
    });

    it('stops forwarding once the fallbackUrl is cleared', async () => {
      const u = await projectWithFallback(`http://127.0.0.1:${up.port}`);
      expect((await s.client.mock(u.pid, 'GET', '/a')).status).toBe(201);
      const cleared = await s.client.api('PUT', `/api/projects/${u.pid}`, { fallbackUrl: null }, u.token);
      expect(cleared.json.fallbackUrl).toBe(null);
      const r = await s.client.mock(u.pid, 'GET', '/a');
      expect([r.status, r.json.error.code]).toEqual([404, 'mock_not_found']);
    });
  });
}
