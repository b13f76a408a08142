/**
 * Property-based fuzzing of mock traffic (docs/api.md "Mock traffic"): raw HTTP/1.1 requests with arbitrary
 * methods, paths (percent-encoded, invalid escapes, dot segments, double slashes, very long),
 * query strings, headers and bodies (sized or chunked), sent over a socket so nothing normalizes
 * them first. They reach endpoints whose rules read every part of the request (header, query,
 * path, body, body_json, regexes), run actions that store what they read, and answer with
 * templates that echo it. Invariants: every request gets an answer, never a 5xx, errors in the
 * contract's shape, no dashboard headers on mock answers, and the service keeps answering.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { METHODS } from '../../src/domain/model.js';
import { MOCK_CSP } from '../../src/runtime/respond.js';
import { DIALECTS } from '../helpers/databases.js';
import { request, startTestServer, type TestServer } from '../helpers/server.js';
import { expectErrorShape, type RawAnswer, rawRequest } from './support.js';

const ECHO =
  '{{request.method}}|{{request.path}}|{{request.params.id}}|{{request.params.*}}|{{request.query.q}}|' +
  '{{request.headers.x-a}}|{{request.body.a.b}}|{{vars.v}}|{{endpoint.last}}|{{$uuid}}|{{request.body}}';

const pathSegment = fc.oneof(
  fc.constantFrom(
    'users',
    'a',
    '42',
    '..',
    '.',
    '',
    '%2e%2e',
    '%2F',
    '%',
    '%zz',
    '%00',
    '%C0%AF',
    '%ff%fe',
    '~',
    ';x=1',
  ),
  fc.constantFrom('%E2%80%AE', '%F0%9F%98%80', 'caf%C3%A9', '*', ':id', '{{request.path}}', '%7B%7B'),
  fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@-]{0,12}$/),
  fc.string({ unit: 'binary', maxLength: 6 }).map((s) => encodeURIComponent(s)),
  fc.string({ maxLength: 6 }).map((s) => s.replace(/[\s?#]/g, '')),
);
const query = fc.oneof(
  fc.constant(''),
  fc.constantFrom('?q=1', '?q=%zz', '?q=a&q=b', '?q', '?=x', '?q=%00', '?n=5', '?%=%', '?q[]=1&__proto__=x'),
  fc
    .dictionary(fc.constantFrom('q', 'n', 'id', 'x'), fc.string({ maxLength: 8 }), { maxKeys: 3 })
    .map((d) => `?${new URLSearchParams(d).toString()}`),
);
const method = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...METHODS) },
  { weight: 1, arbitrary: fc.constantFrom(...METHODS).map((m) => m.toLowerCase()) },
  { weight: 1, arbitrary: fc.constantFrom('PROPFIND', 'PURGE', 'TRACE', 'CONNECT', 'M-SEARCH', 'LOCK', 'QUERY') },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Z@ ]{0,8}$/) },
);
const headerName = fc.oneof(
  fc.constantFrom('x-a', 'x-tier', 'content-type', 'x-mockyard-session', 'x-mockyard-seed', 'x-mockyard-hop'),
  fc.constantFrom('cookie', 'authorization', 'accept', 'origin', 'access-control-request-method', 'expect'),
  fc.stringMatching(/^[a-z0-9-]{1,12}$/),
);
const headerValue = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[\x20-\x7e]{0,30}$/) },
  {
    weight: 4,
    arbitrary: fc.constantFrom('vip', 'application/json', '-1', '99999999999999999999', 'NaN', '1e308', '{{$uuid}}'),
  },
  { weight: 1, arbitrary: fc.constantFrom('é', '\u00ff\u0080', 'a\u0000b', 'a\rb', '\t x \t', 'x'.repeat(3000)) },
);
const body = fc.oneof(
  fc.constant(''),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc
    .record({ a: fc.record({ b: fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.constant(null)) }) })
    .map((v) => JSON.stringify(v)),
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.constantFrom('{"a":', '\u0000\u0001', 'a'.repeat(30_000), '{"a":{"b":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"}}'),
);

interface MockRequest {
  method: string;
  project: 'own' | 'unknown' | 'encoded';
  segments: string[];
  query: string;
  headers: [string, string][];
  body: string;
  chunked: boolean;
}

const mockRequest: fc.Arbitrary<MockRequest> = fc.record({
  method,
  project: fc.constantFrom('own', 'own', 'own', 'unknown', 'encoded'),
  segments: fc.oneof(
    { weight: 8, arbitrary: fc.array(pathSegment, { maxLength: 6 }) },
    { weight: 1, arbitrary: fc.constant<string[]>(['a'.repeat(9000)]) },
    { weight: 1, arbitrary: fc.constant(Array.from({ length: 400 }, () => '..')) },
  ),
  query,
  headers: fc.array(fc.tuple(headerName, headerValue), { maxLength: 6 }),
  body,
  chunked: fc.boolean(),
});

function wire(pid: string, r: MockRequest): Buffer {
  const project = r.project === 'own' ? pid : r.project === 'unknown' ? 'nope' : encodeURIComponent(`${pid}/../x`);
  const target = `/m/${project}/${r.segments.join('/')}${r.query}`;
  const lines = [`${r.method} ${target} HTTP/1.1`, 'Host: 127.0.0.1'];
  for (const [k, v] of r.headers) if (k !== 'expect') lines.push(`${k}: ${v}`);
  const payload = Buffer.from(r.body, 'utf8');
  if (r.chunked) lines.push('Transfer-Encoding: chunked');
  else lines.push(`Content-Length: ${payload.length}`);
  lines.push('Connection: close', '', '');
  const head = Buffer.from(lines.join('\r\n'), 'latin1');
  if (!r.chunked) return Buffer.concat([head, payload]);
  const parts: Buffer[] = [head];
  for (let i = 0; i < payload.length; i += 7000) {
    const c = payload.subarray(i, i + 7000);
    parts.push(Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

function headersOf(ans: RawAnswer): Headers {
  const h = new Headers();
  for (const line of ans.head.split('\r\n').slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) {
      try {
        h.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
      } catch {
        /* a value fetch's Headers refuses (e.g. obs-text) */
      }
    }
  }
  return h;
}

for (const dialect of DIALECTS) {
  describe(`mock traffic fuzz (${dialect})`, () => {
    let srv: TestServer;
    let pid = '';
    let token = '';
    const runs = dialect === 'sqlite' ? 300 : 120;

    beforeAll(async () => {
      srv = await startTestServer(dialect);
      const c = srv.client;
      const u = await c.user();
      token = u.token;
      pid = (await c.project(token, 'fuzz')).id;
      for (const m of METHODS) {
        // `/*` takes everything; `/users/:id` and a literal take the paths that look like them
        const star = await c.endpoint(token, pid, { method: m, path: '/*', responseBody: ECHO });
        await c.endpoint(token, pid, { method: m, path: '/users/:id', responseBody: ECHO, contentType: 'text/plain' });
        await c.endpoint(token, pid, { method: m, path: '/a', statusCode: 204 });
        await c.rule(token, pid, star.id, {
          name: 'reads everything',
          priority: 2,
          conditions: [
            { target: 'header', key: 'x-tier', operator: 'not_equals', value: 'nobody' },
            { target: 'body_json', key: 'a.b', operator: 'not_contains', value: 'zzz' },
            { target: 'body', operator: 'matches_regex', value: '^(a+)+$|(x+x+)+y|' },
            { target: 'path', operator: 'matches_regex', value: '(x+x+)+y|^/' },
          ],
          actions: [{ type: 'set_variable', name: 'v', value: '{{request.query.q}}' }],
          response: {
            steps: [{ statusCode: 201, body: ECHO, headers: { 'x-echo': '{{request.headers.x-a}}' } }],
          },
        });
        await c.rule(token, pid, star.id, {
          name: 'stores the body',
          priority: 0,
          conditions: [
            { target: 'method', operator: 'matches_regex', value: '^P' },
            { target: 'query', key: 'n', operator: 'not_equals', value: '10' },
          ],
          actions: [
            { type: 'store_variable', name: 'last', value: '{{request.body}}|{{request.headers.x-a}}' },
            { type: 'set_variable', name: 'v', value: '{{endpoint.last}}' },
          ],
          response: {
            mode: 'loop',
            steps: [
              { statusCode: 202, body: ECHO, headers: { 'content-type': '{{request.headers.x-a}}' } },
              { statusCode: 203, body: '{{vars.v}}', count: 2 },
            ],
          },
        });
        await c.rule(token, pid, star.id, {
          name: 'random',
          priority: 1,
          conditions: [{ target: 'random', operator: 'less_than', value: 50 }],
          response: { steps: [{ statusCode: 200, body: '{{request.body.a}}' }] },
        });
      }
    });
    afterAll(async () => {
      await srv?.close();
    });

    test('any request: an answer, never a 5xx, errors in the contract shape, no dashboard headers', async () => {
      const port = srv.running.port;
      const seen = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(mockRequest, async (r) => {
          const ans = await rawRequest(port, wire(pid, r));
          const ctx = `${r.method} ${r.segments.join('/').slice(0, 120)}${r.query} → ${ans.head.slice(0, 200)}`;
          expect(ans.status, ctx).not.toBeNull();
          const status = ans.status as number;
          seen.set(status, (seen.get(status) ?? 0) + 1);
          expect(status, ctx).toBeLessThan(500);
          const h = headersOf(ans);
          const text = Buffer.from(ans.body, 'latin1').toString();
          // no dashboard headers on anything the mock port answers
          expect(h.get('x-frame-options'), ctx).toBeNull();
          expect(h.get('set-cookie'), ctx).toBeNull();
          // node's parser rejects some requests before any handler (400 not HTTP, 431 headers too large,
          // 405 CONNECT): still the contract's error shape, but no CORS header, since no mock was reached
          const parserReject =
            (status === 400 || status === 431 || (status === 405 && r.method === 'CONNECT')) &&
            !h.has('access-control-allow-origin');
          if (!parserReject) {
            expect(h.get('access-control-allow-origin'), ctx).toBe('*');
            // every mock answer is sandboxed (SECURITY.md)
            expect(h.get('content-security-policy'), ctx).toBe(MOCK_CSP);
          } else expect(h.get('content-security-policy'), ctx).toBeNull();
          if (status >= 400 && r.method !== 'HEAD') expectErrorShape({ status, text, headers: h });
        }),
        { numRuns: runs },
      );
      // the arbitraries reach the rules, the defaults and the misses, not only the parser
      for (const s of [200, 201, 404]) expect(seen.get(s) ?? 0, JSON.stringify([...seen])).toBeGreaterThan(0);
      expect((seen.get(202) ?? 0) + (seen.get(203) ?? 0)).toBeGreaterThan(0);
      expect((await request(`${srv.running.url}/healthz`)).status).toBe(200);
    });

    test('a concurrent burst of odd requests leaves the service answering and its records readable', async () => {
      const port = srv.running.port;
      const batch = fc.sample(mockRequest, { numRuns: 60, seed: 42 });
      const answers = await Promise.all(batch.map((r) => rawRequest(port, wire(pid, r))));
      for (const a of answers) {
        expect(a.status).not.toBeNull();
        expect(a.status as number).toBeLessThan(500);
      }
      expect((await request(`${srv.running.url}/healthz`)).status).toBe(200);
      expect((await request(`${srv.running.url}/readyz`)).status).toBe(200);
      // what the fuzzed requests stored and logged can be read back through the API
      let log = await srv.client.api('GET', `/api/projects/${pid}/requests?limit=500`, undefined, token);
      for (let i = 0; i < 100 && log.status === 200 && log.json.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 20));
        log = await srv.client.api('GET', `/api/projects/${pid}/requests?limit=500`, undefined, token);
      }
      expect(log.status).toBe(200);
      expect(log.json.length).toBeGreaterThan(0);
      const eps = await srv.client.api('GET', `/api/projects/${pid}/endpoints`, undefined, token);
      for (const e of eps.json) {
        const st = await srv.client.api('GET', `/api/projects/${pid}/endpoints/${e.id}/storage`, undefined, token);
        expect(st.status).toBe(200);
      }
    });
  });
}
