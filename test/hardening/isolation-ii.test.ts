/**
 * Security II (issue 15), part one: mock answers isolated from the dashboard's origin (SECURITY.md).
 * Each test is one attack of the red team's report, run over HTTP against the real server:
 * stored script through a mock answer, a service worker for the whole origin, a loop-guard bypass,
 * an unsendable header saved into a rule, a 1xx sent as a final answer; and mock hosts.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MOCK_CSP } from '../../src/runtime/respond.js';
import { mockHostMatcher } from '../../src/server.js';
import { DIALECTS } from '../helpers/databases.js';
import { expectError, expectValidation } from '../helpers/expect.js';
import { freePort, type HttpAnswer, request, startTestServer, type TestServer } from '../helpers/server.js';

/** A GET with this Host header (fetch does not let a caller set Host). */
function hostGet(url: string, host: string): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { host }, timeout: 5000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        text += c;
      });
      res.on('end', () => {
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, String(v));
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, text, headers, json, ms: 0 });
      });
    });
    req.on('error', reject);
  });
}

/** A GET through node's own client, with its informational responses (1xx) recorded. */
function getWithInterim(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ interim: number[]; status: number; body: string; upgrade: boolean }> {
  return new Promise((resolve, reject) => {
    const interim: number[] = [];
    let upgrade = false;
    const req = http.get(url, { headers, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () => resolve({ interim, status: res.statusCode ?? 0, body, upgrade }));
    });
    req.on('information', (info) => interim.push(info.statusCode));
    req.on('upgrade', () => {
      upgrade = true;
      reject(new Error('the server switched protocols'));
    });
    req.on('timeout', () => req.destroy(new Error('no final answer within 5 s')));
    req.on('error', reject);
  });
}

describe.each(DIALECTS)('mock answers are isolated from the dashboard (%s)', (dialect) => {
  let s: TestServer;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    s = await startTestServer(dialect, {
      port,
      mockDomain: 'mock.example.test',
      allowTargets: [`127.0.0.1:${port}`],
    });
  });
  afterAll(() => s.close());

  test('attack 1: a script answer is sandboxed on every kind of mock answer, never with allow-same-origin', async () => {
    const c = s.client;
    const f = await c.fixture({
      method: 'POST',
      path: '/steal',
      responseBody: "<script>fetch('/x?t='+localStorage['mockyard.token'])</script>",
      contentType: 'text/html',
    });
    await c.rule(f.token, f.pid, f.eid, {
      conditions: [{ target: 'header', key: 'x-step', operator: 'exists' }],
      response: { steps: [{ statusCode: 200, body: '<script>1</script>', headers: { 'content-type': 'text/html' } }] },
    });
    await c.rule(f.token, f.pid, f.eid, {
      conditions: [{ target: 'header', key: 'x-tpl', operator: 'exists' }],
      response: { steps: [{ statusCode: 200, body: '{{request.headers.x-tpl}}', headers: { 'x-t': '{{$uuid}}' } }] },
    });
    const answers = [
      await c.mock(f.pid, 'POST', '/steal'), // fixed default
      await c.mock(f.pid, 'POST', '/steal', { headers: { 'x-step': '1' } }), // fixed step
      await c.mock(f.pid, 'POST', '/steal', { headers: { 'x-tpl': '<b>' } }), // templated step
      await c.mock('AAAAAAAAAAAAAAAAAAAAAA', 'GET', '/x'), // no such project
      await c.mock(f.pid, 'GET', '/nothing-here'), // no such endpoint
      await c.mock(f.pid, 'OPTIONS', '/steal', { headers: { 'access-control-request-method': 'POST' } }),
      await c.mock(f.pid, 'POST', '/steal', { body: 'z'.repeat(1024 * 1024 + 1) }), // 413
    ];
    await c.api('PATCH', `/api/projects/${f.pid}`, { fallbackUrl: `http://127.0.0.1:${port}/m/${f.pid}` }, f.token);
    answers.push(await c.mock(f.pid, 'GET', '/nothing-here')); // proxied to itself until the loop guard: 502
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 404, 404, 204, 413, 502]);
    for (const a of answers) {
      const csp = a.headers.get('content-security-policy');
      expect(csp).toBe(MOCK_CSP);
      expect(csp).not.toContain('allow-same-origin');
      expect(a.headers.get('access-control-allow-origin')).toBe('*');
    }
  });

  test('attack 1b: Service-Worker-Allowed and Clear-Site-Data are dropped; a step’s own CSP is added, never replaces ours', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'GET', path: '/sw.js' });
    await c.rule(f.token, f.pid, f.eid, {
      response: {
        steps: [
          {
            statusCode: 200,
            body: 'self.addEventListener("fetch", () => {})',
            headers: {
              'content-type': 'text/javascript',
              'Service-Worker-Allowed': '/',
              'clear-site-data': '"*"',
              'Content-Security-Policy': "default-src 'none'",
              'x-kept': 'yes',
            },
          },
        ],
      },
    });
    const r = await c.mock(f.pid, 'GET', '/sw.js');
    expect(r.status).toBe(200);
    expect(r.headers.get('service-worker-allowed')).toBeNull();
    expect(r.headers.get('clear-site-data')).toBeNull();
    expect(r.headers.get('x-kept')).toBe('yes');
    // fetch joins repeated headers with ", ": ours first, theirs beside it
    expect(r.headers.get('content-security-policy')).toBe(`${MOCK_CSP}, default-src 'none'`);
  });

  test('attack 3: x-mockyard-hop that is negative, -Infinity or not an integer counts as 0: a self-calling webhook stops', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'GET', path: '/loop' });
    await c.rule(f.token, f.pid, f.eid, {
      actions: [{ type: 'http_request', url: `http://127.0.0.1:${port}/m/${f.pid}/loop`, timeoutMs: 10_000 }],
    });
    for (const hop of ['-Infinity', '-5', '1e-9', ' 0x0', 'NaN', '-0']) {
      const before = (await c.api('GET', `/api/projects/${f.pid}/requests?limit=500`, undefined, f.token)).json.length;
      const r = await c.mock(f.pid, 'GET', '/loop', { headers: { 'x-mockyard-hop': hop }, timeoutMs: 20_000 });
      expect(r.status, hop).toBe(200);
      const after = (await c.api('GET', `/api/projects/${f.pid}/requests?limit=500`, undefined, f.token)).json.length;
      // the request itself plus at most 3 hops through the service
      expect(after - before, `hop header ${hop}`).toBeLessThanOrEqual(4);
    }
  });

  test('attack 4c: a contentType or header value node could not send is a 400 at save, never a 500 per request', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'GET', path: '/ct' });
    for (const contentType of [
      'text/html\r\nx-evil: 1',
      'text/plain\nset-cookie: a=b',
      'a\u0007b',
      'text/plain; charset=€',
    ]) {
      expectValidation(
        await c.api('PATCH', `/api/projects/${f.pid}/endpoints/${f.eid}`, { contentType }, f.token),
        '/contentType',
      );
      expectValidation(
        await c.api('POST', `/api/projects/${f.pid}/endpoints`, { method: 'POST', path: '/n', contentType }, f.token),
        '/contentType',
      );
      const step = await c.api(
        'POST',
        `/api/projects/${f.pid}/endpoints/${f.eid}/rules`,
        { name: 'r', response: { steps: [{ statusCode: 200, headers: { 'content-type': contentType } }] } },
        f.token,
      );
      expectValidation(step, '/response/steps/0/headers/content-type');
      const action = await c.api(
        'POST',
        `/api/projects/${f.pid}/endpoints/${f.eid}/rules`,
        {
          name: 'r',
          actions: [{ type: 'http_request', url: 'http://example.test/', headers: { 'x-a': contentType } }],
        },
        f.token,
      );
      expectValidation(action, '/actions/0/headers/x-a');
    }
    // Latin-1 is sendable and kept
    const latin = await c.api(
      'PATCH',
      `/api/projects/${f.pid}/endpoints/${f.eid}`,
      { contentType: 'text/plain; x=é' },
      f.token,
    );
    expect(latin.status).toBe(200);
    const r = await c.mock(f.pid, 'GET', '/ct');
    expect(r.status).toBe(200);
    // a templated header that renders CR/LF at request time is dropped, the answer still goes out
    await c.rule(f.token, f.pid, f.eid, {
      response: { steps: [{ statusCode: 201, headers: { 'x-echo': '{{request.query.v}}' } }] },
    });
    const injected = await c.mock(f.pid, 'GET', '/ct', { query: 'v=a%0d%0aset-cookie:%20x=1' });
    expect(injected.status).toBe(201);
    expect(injected.headers.get('x-echo')).toBeNull();
    expect(injected.headers.get('set-cookie')).toBeNull();
  });

  test('attack 4d: a 1xx step or default never reaches the client as a final answer; node’s client gets the interim and then 200', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'GET', path: '/default-101', statusCode: 101, responseBody: 'default' });
    const cases: [number, Record<string, string>, number[]][] = [
      [100, {}, [100]],
      [101, { upgrade: 'websocket', connection: 'upgrade' }, []],
      [102, {}, [102]],
      [103, { link: '</app.css>; rel=preload; as=style' }, [103]],
      [199, {}, []],
    ];
    for (const [status, headers, interim] of cases) {
      const e = await c.endpoint(f.token, f.pid, { method: 'GET', path: `/s${status}` });
      await c.rule(f.token, f.pid, e.id, {
        response: { steps: [{ statusCode: status, body: `body ${status}`, headers }] },
      });
      const r = await getWithInterim(`${s.running.url}/m/${f.pid}/s${status}`);
      expect(r, `step ${status}`).toEqual({ interim, status: 200, body: `body ${status}`, upgrade: false });
    }
    const d = await getWithInterim(`${s.running.url}/m/${f.pid}/default-101`);
    expect(d).toEqual({ interim: [], status: 200, body: 'default', upgrade: false });
    // the log records what was sent
    const log = await c.api('GET', `/api/projects/${f.pid}/requests?limit=1`, undefined, f.token);
    expect(log.json[0].statusCode).toBe(200);
  });

  test('mock hosts: a slug per project, unique, changeable; <slug>.<domain> serves the real paths', async () => {
    const c = s.client;
    const u = await c.user();
    const created = await c.api('POST', '/api/projects', { name: 'Shop API!' }, u.token);
    expect(created.status).toBe(201);
    const p = created.json;
    expect(p.slug).toMatch(/^shop-api-[a-z0-9]{6}$/);
    expect(p.mockUrl).toBe(`http://${p.slug}.mock.example.test`);
    await c.endpoint(u.token, p.id, {
      method: 'GET',
      path: '/api/users/:id',
      responseBody: 'user {{request.params.id}}',
    });

    const viaHost = await hostGet(
      `${s.running.url}/api/users/42?x=1`,
      `${p.slug.toUpperCase()}.Mock.Example.Test:8443`,
    );
    expect([viaHost.status, viaHost.text]).toEqual([200, 'user 42']);
    expect(viaHost.headers.get('content-security-policy')).toBe(MOCK_CSP);
    const viaPath = await c.mock(p.id, 'GET', '/api/users/7');
    expect([viaPath.status, viaPath.text]).toEqual([200, 'user 7']);
    // the management API is not reachable on a mock host: the path is the project's
    const api = await hostGet(`${s.running.url}/api/projects`, `${p.slug}.mock.example.test`);
    expectError(api, 404, 'mock_not_found');
    for (const host of ['nobody-here.mock.example.test', 'a.b.mock.example.test', '-x.mock.example.test']) {
      expectError(await hostGet(`${s.running.url}/api/users/1`, host), 404, 'mock_not_found');
    }
    // the log of a host request has the real path
    const log = await c.api('GET', `/api/projects/${p.id}/requests?limit=3`, undefined, u.token);
    expect(log.json.map((e: { path: string }) => e.path)).toEqual(['/api/projects', '/api/users/7', '/api/users/42']);

    // change it: 200, the old name stops at once, the new one answers
    const renamed = await c.api(
      'PATCH',
      `/api/projects/${p.id}`,
      {
        slug: `shop-${p.id
          .slice(0, 6)
          .toLowerCase()
          .replace(/[^a-z0-9]/g, 'x')}`,
      },
      u.token,
    );
    expect(renamed.status).toBe(200);
    const slug = renamed.json.slug;
    expect(renamed.json.mockUrl).toBe(`http://${slug}.mock.example.test`);
    expectError(await hostGet(`${s.running.url}/api/users/1`, `${p.slug}.mock.example.test`), 404, 'mock_not_found');
    const now = await hostGet(`${s.running.url}/api/users/1`, `${slug}.mock.example.test`);
    expect(now.text).toBe('user 1');

    // taken by another project (of anyone): 409; not a DNS label: 400
    const other = await c.user();
    const q = await c.project(other.token);
    expectError(await c.api('PATCH', `/api/projects/${q.id}`, { slug }, other.token), 409, 'conflict');
    expectError(await c.api('POST', '/api/projects', { name: 'x', slug }, other.token), 409, 'conflict');
    for (const bad of ['', '-a', 'a-', 'A', 'a_b', 'a.b', 'x'.repeat(64), 'é']) {
      expectValidation(await c.api('PATCH', `/api/projects/${q.id}`, { slug: bad }, other.token), '/slug');
    }
    const given = await c.api('POST', '/api/projects', { name: 'x', slug: `given-${Date.now()}` }, other.token);
    expect(given.status).toBe(201);
  });

  test('the host matcher: any port and case; one label only; other hosts are not mock hosts', () => {
    const m = mockHostMatcher('mock.example.test');
    expect(m('Shop.MOCK.example.test:3000')).toBe('shop');
    expect(m('shop.mock.example.test.')).toBe('shop');
    expect(m('a.b.mock.example.test')).toBe('');
    expect(m('mock.example.test')).toBeNull();
    expect(m('shopmock.example.test')).toBeNull();
    expect(m('127.0.0.1:3000')).toBeNull();
    expect(m('[::1]:3000')).toBeNull();
    expect(m(undefined)).toBeNull();
  });
});

describe('without a mock domain', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
  });
  afterAll(() => s.close());

  test('mockUrl is the /m/<slug> prefix (/m/<id> serves too) and a Host header names no project', async () => {
    const u = await s.client.user();
    const p = (await s.client.api('POST', '/api/projects', { name: 'n' }, u.token)).json;
    // the slug form; the id form serves the same project
    expect(p.mockUrl).toBe(`/m/${p.slug}`);
    await s.client.endpoint(u.token, p.id, { method: 'GET', path: '/hello', responseBody: 'hi' });
    expect((await request(`${s.running.url}${p.mockUrl}/hello`)).text).toBe('hi');
    expect((await request(`${s.running.url}/m/${p.id}/hello`)).text).toBe('hi');
    expect((await request(`${s.running.url}/m/no-such-slug-x1/hello`)).status).toBe(404);
    const r = await hostGet(`${s.running.url}/api/projects`, `${p.slug}.mock.example.test`);
    expectError(r, 401, 'unauthorized');
  });
});
