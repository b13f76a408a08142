/**
 * The body errors every management route shares, on every database (docs/api.md "Errors"): invalid
 * JSON, 415 for a write that is not JSON, 413 for a body over the limit (declared or chunked, on the
 * API and on mock paths).
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { expectError, expectNoStack } from '../helpers/expect.js';
import { type HttpAnswer, startTestServer, type TestClient, type TestServer } from '../helpers/server.js';

const MiB2 = 2 * 1024 * 1024;

/** POSTs 2 MiB with Transfer-Encoding: chunked (no Content-Length to refuse it by). */
function postChunked(url: string, headers: Record<string, string>): Promise<HttpAnswer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', headers: { ...headers, 'transfer-encoding': 'chunked' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: new Headers(res.headers as Record<string, string>),
            text,
            json: JSON.parse(text),
            ms: performance.now() - started,
          }),
        );
      },
    );
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
    const chunk = 'x'.repeat(64 * 1024);
    let n = 0;
    const write = () => {
      while (n < MiB2 / chunk.length) {
        n++;
        if (!req.write(chunk)) {
          req.once('drain', write);
          return;
        }
      }
      req.end();
    };
    write();
  });
}

describe.each(DIALECTS)('body errors on %s', (dialect) => {
  let s: TestServer;
  let c: TestClient;
  beforeAll(async () => {
    s = await startTestServer(dialect);
    c = s.client;
  });
  afterAll(async () => {
    await s?.close();
  });

  describe('body errors shared by management routes', () => {
    it('answers 400 invalid_json for a body that does not parse', async () => {
      const u = await c.user();
      for (const body of ['{bad', '{"name": "x"', "{'name': 'x'}", 'nul']) {
        expectError(await c.api('POST', '/api/projects', body, u.token), 400, 'invalid_json');
      }
      expectError(await c.api('POST', '/api/auth/register', '{"email":'), 400, 'invalid_json');
      expectError(await c.api('POST', '/api/auth/login', '{'), 400, 'invalid_json');
      expect(await c.api('GET', '/api/projects', undefined, u.token)).toMatchObject({ status: 200, json: [] });
    });

    it('answers 415 unsupported_media_type for a write whose body is not JSON', async () => {
      const u = await c.user();
      const cases: [string, string][] = [
        ['text/plain', '{"name":"x"}'],
        ['application/x-www-form-urlencoded', 'name=x'],
        ['application/xml', '<name>x</name>'],
      ];
      for (const [type, body] of cases) {
        const r = await c.api('POST', '/api/projects', body, u.token, { 'content-type': type });
        expectError(r, 415, 'unsupported_media_type');
      }
      const reg = await c.api('POST', '/api/auth/register', 'email=x', null, { 'content-type': 'text/plain' });
      expectError(reg, 415, 'unsupported_media_type');
      expect((await c.api('GET', '/api/projects', undefined, u.token)).json).toEqual([]);
    });

    it('answers 413 payload_too_large for a 2 MiB management body', async () => {
      const u = await c.user();
      const big = JSON.stringify({ name: 'x'.repeat(MiB2) });
      expectError(await c.api('POST', '/api/projects', big, u.token), 413, 'payload_too_large');
      expectError(await c.api('POST', '/api/auth/register', big), 413, 'payload_too_large');
      const chunked = await postChunked(`${c.base}/api/projects`, {
        'content-type': 'application/json',
        authorization: `Bearer ${u.token}`,
      });
      expectError(chunked, 413, 'payload_too_large');
      // the server is fine afterwards
      expect((await c.api('GET', '/api/projects', undefined, u.token)).json).toEqual([]);
    });

    it('answers 413 payload_too_large for a 2 MiB mock body', async () => {
      const f = await c.fixture({ method: 'POST', path: '/upload' });
      const r = await c.mock(f.pid, 'POST', '/upload', {
        body: 'x'.repeat(MiB2),
        headers: { 'content-type': 'text/plain' },
      });
      expectError(r, 413, 'payload_too_large');
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      const chunked = await postChunked(`${c.base}/m/${f.pid}/upload`, { 'content-type': 'text/plain' });
      expectError(chunked, 413, 'payload_too_large');
      expect((await c.mock(f.pid, 'POST', '/upload', { body: 'small' })).status).toBe(200);
    });

    it('a mock body cut off mid-way, or chunked past twice the limit, fails that request alone', async () => {
      const f = await c.fixture({ method: 'POST', path: '/upload' });
      const { hostname, port } = new URL(c.base);
      // half of a declared body, then the client goes: nothing to answer, nothing thrown
      const gone = await new Promise<string>((resolve) => {
        const req = http.request({
          hostname,
          port,
          method: 'POST',
          path: `/m/${f.pid}/upload`,
          headers: { 'content-length': '1000' },
        });
        req.on('response', (res) => resolve(`answered ${res.statusCode}`));
        req.on('error', () => resolve('gone'));
        req.on('close', () => resolve('gone'));
        req.write('x'.repeat(500), () => setImmediate(() => req.destroy()));
      });
      // no answer to half a body, and the server goes on answering
      expect(gone).toBe('gone');
      expect((await c.mock(f.pid, 'POST', '/upload', { body: 'after' })).status).toBe(200);
      // 3 MiB chunked: past twice the limit the server stops reading, answers 413 and closes
      const past = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const req = http.request(
          `${c.base}/m/${f.pid}/upload`,
          { method: 'POST', headers: { 'transfer-encoding': 'chunked' } },
          (res) => {
            res.resume();
            resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
          },
        );
        req.on('error', (e) =>
          e.message.includes('EPIPE') || e.message.includes('ECONNRESET') ? undefined : reject(e),
        );
        const chunk = 'x'.repeat(64 * 1024);
        let sent = 0;
        const more = () => {
          while (sent < 3 * 1024 * 1024 && !req.destroyed) {
            sent += chunk.length;
            if (!req.write(chunk)) return req.once('drain', more);
          }
          req.end();
        };
        more();
      });
      expect(past).toEqual({ status: 413, connection: 'close' });
      expect((await c.mock(f.pid, 'POST', '/upload', { body: 'small' })).status).toBe(200);
    });

    it('answers 404 not_found with the error shape for an unknown API route or an over-long id', async () => {
      const u = await c.user();
      expectError(await c.api('GET', `/api/projects/${'a'.repeat(300)}`, undefined, u.token), 404, 'not_found');
      expectError(await c.api('DELETE', `/api/projects/${'a'.repeat(300)}`, undefined, u.token), 404, 'not_found');
      expectError(await c.api('GET', '/api/nope', undefined, u.token), 404, 'not_found');
      expectError(await c.api('POST', '/api/projects/x/unknown', { a: 1 }, u.token), 404, 'not_found');
    });

    it('never leaks a stack trace, even for hostile input', async () => {
      const u = await c.user();
      const answers = await Promise.all([
        c.api('POST', '/api/projects', { name: { $gt: '' } }, u.token),
        c.api('POST', '/api/projects', '{"__proto__": {"x": 1}, "name": "p"}', u.token),
        c.api('POST', '/api/projects', 'null', u.token),
        c.api('PATCH', `/api/projects/${'%'.repeat(3)}`, { name: 'x' }, u.token),
        c.api('GET', '/api/projects/%E0%A4%A', undefined, u.token),
        c.api('GET', `/api/projects/${'a'.repeat(300)}`, undefined, u.token),
      ]);
      for (const r of answers) {
        expect(r.status).toBeGreaterThanOrEqual(200);
        expect(r.status).toBeLessThan(500);
        expectNoStack(r.text);
        if (r.status >= 400) expect(Object.keys(r.json), r.text).toEqual(['error']);
      }
    });
  });
});
