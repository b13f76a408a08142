/**
 * docs/api.md "Mock traffic" over HTTP on every database: mock URLs, route precedence, trailing slashes,
 * parameters in templates, CORS and preflight, mock_not_found, and that a management change is in
 * effect for the very next mock request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { expectError } from '../helpers/expect.js';
import { exchange } from '../helpers/raw-http.js';
import { request, startTestServer, type TestClient, type TestServer } from '../helpers/server.js';

describe.each(DIALECTS)('mock serving on %s', (dialect) => {
  let s: TestServer;
  let c: TestClient;
  let u: { token: string; id: string };
  beforeAll(async () => {
    s = await startTestServer(dialect);
    c = s.client;
    u = await c.user();
    // room for the rules of the "next request" test
    await c.api('PATCH', `/api/admin/users/${u.id}`, { plan: 'pro' }, c.adminToken);
  });
  afterAll(async () => {
    await s?.close();
  });

  const project = async () => (await c.project(u.token, 'mocks')).id;
  const endpoint = (pid: string, body: Record<string, unknown>) => c.endpoint(u.token, pid, body);
  const epUrl = (pid: string, eid: string) => `/api/projects/${pid}/endpoints/${eid}`;

  it('serves an endpoint at /m/:projectId<path>, with the query string, without auth', async () => {
    const pid = await project();
    await endpoint(pid, {
      method: 'GET',
      path: '/api/users/:id',
      statusCode: 203,
      responseBody: '{"id":"{{request.params.id}}","x":"{{ request.query.x }}","m":"{{request.method}}"}',
      contentType: 'application/vnd.user+json',
    });
    const r = await c.mock(pid, 'GET', '/api/users/42', { query: 'x=1' });
    expect(r.status).toBe(203);
    expect(r.headers.get('content-type')).toBe('application/vnd.user+json');
    expect(r.json).toEqual({ id: '42', x: '1', m: 'GET' });
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    // a token of any kind is neither needed nor looked at
    const withAuth = await c.mock(pid, 'GET', '/api/users/7', { headers: { authorization: 'Bearer nonsense' } });
    expect(withAuth.status).toBe(203);
    expect(withAuth.json.id).toBe('7');
  });

  it('answers the default body as is when it has no template, and an empty body by default', async () => {
    const pid = await project();
    await endpoint(pid, { method: 'GET', path: '/plain', responseBody: 'just text', contentType: 'text/plain' });
    await endpoint(pid, { method: 'GET', path: '/empty' });
    const plain = await c.mock(pid, 'GET', '/plain');
    expect(plain).toMatchObject({ status: 200, text: 'just text' });
    expect(plain.headers.get('content-type')).toBe('text/plain');
    const empty = await c.mock(pid, 'GET', '/empty');
    expect(empty).toMatchObject({ status: 200, text: '' });
    expect(empty.headers.get('content-type')).toBe('application/json');
  });

  it('sends non-ASCII bodies as UTF-8 with their length in bytes: fixed, templated, a rule step, HEAD', async () => {
    const pid = await project();
    const fixed = '{"name":"Zoë","city":"Kraków","emoji":"🦊"}';
    await endpoint(pid, { method: 'GET', path: '/fixed', responseBody: fixed });
    await endpoint(pid, { method: 'HEAD', path: '/fixed', responseBody: fixed });
    await endpoint(pid, { method: 'GET', path: '/hi/:name', responseBody: '{"hi":"{{request.params.name}} ✓"}' });
    const stepped = await endpoint(pid, { method: 'GET', path: '/stepped', responseBody: 'default' });
    await c.rule(u.token, pid, stepped.id, {
      name: 'always',
      conditions: [],
      response: { mode: 'loop', steps: [{ statusCode: 201, body: 'première réponse 🦊', headers: {} }] },
    });
    const cases: [string, string, string][] = [
      ['GET', '/fixed', fixed],
      ['GET', `/hi/${encodeURIComponent('Zoë')}`, '{"hi":"Zoë ✓"}'],
      ['GET', '/stepped', 'première réponse 🦊'],
    ];
    for (const [method, path, body] of cases) {
      const r = await c.mock(pid, method, path);
      expect(r.text).toBe(body);
      expect(r.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    }
    const head = await c.mock(pid, 'HEAD', '/fixed');
    expect(head).toMatchObject({ status: 200, text: '' });
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(fixed)));
  });

  it('answers pipelined requests on a kept-alive connection, and closes it when the client asks', async () => {
    const pid = await project();
    await endpoint(pid, { method: 'GET', path: '/fixed', statusCode: 404, responseBody: 'gone' });
    await endpoint(pid, { method: 'GET', path: '/hi/:name', responseBody: 'hi {{request.params.name}}' });
    const stepped = await endpoint(pid, { method: 'GET', path: '/stepped', responseBody: 'default' });
    await c.rule(u.token, pid, stepped.id, {
      name: 'always',
      conditions: [],
      response: { mode: 'loop', steps: [{ statusCode: 201, body: 'step', headers: { 'x-step': 'one' } }] },
    });
    const { port } = new URL(s.running.url);
    const get = (path: string, extra = '') => `GET /m/${pid}${path} HTTP/1.1\r\nHost: t\r\n${extra}\r\n`;
    const kept = await exchange(Number(port), get('/fixed') + get('/hi/ada') + get('/stepped'), { answers: 3 });
    const answers = kept.text.split(/(?=HTTP\/1\.1 )/);
    expect(answers.map((a) => a.slice(0, a.indexOf('\r\n')))).toEqual([
      'HTTP/1.1 404 Not Found',
      'HTTP/1.1 200 OK',
      'HTTP/1.1 201 Created',
    ]);
    expect(answers.map((a) => a.slice(a.indexOf('\r\n\r\n') + 4))).toEqual(['gone', 'hi ada', 'step']);
    for (const a of answers) {
      expect(a).toContain('content-security-policy: sandbox ');
      expect(a).toContain('Date: -\r\nConnection: keep-alive\r\nKeep-Alive: timeout=');
    }
    expect(answers[2]).toContain('x-step: one\r\n');
    expect(kept.closed).toBe(false);
    for (const request of [get('/fixed', 'Connection: close\r\n'), `GET /m/${pid}/hi/bo HTTP/1.0\r\n\r\n`]) {
      const closing = await exchange(Number(port), request, { close: true });
      expect(closing.text).toContain('Connection: close\r\n');
      expect(closing.closed).toBe(true);
    }
  });

  it('literal segments win over :name, which wins over *, whatever the creation order', async () => {
    const pid = await project();
    await endpoint(pid, { method: 'GET', path: '/users/*', responseBody: 'wild' });
    await endpoint(pid, { method: 'GET', path: '/users/:id', responseBody: 'param {{request.params.id}}' });
    await endpoint(pid, { method: 'GET', path: '/users/me', responseBody: 'literal' });
    await endpoint(pid, { method: 'GET', path: '/users/:id/posts', responseBody: 'posts of {{request.params.id}}' });
    await endpoint(pid, { method: 'GET', path: '/users/me/posts', responseBody: 'my posts' });
    const cases: [string, string][] = [
      ['/users/me', 'literal'],
      ['/users/42', 'param 42'],
      ['/users/42/posts', 'posts of 42'],
      ['/users/me/posts', 'my posts'],
      ['/users/42/comments', 'wild'],
      ['/users/a/b/c/d', 'wild'],
      ['/users/me/comments', 'wild'],
    ];
    for (const [p, body] of cases) {
      const r = await c.mock(pid, 'GET', p);
      expect({ p, status: r.status, text: r.text }).toEqual({ p, status: 200, text: body });
    }
  });

  it('ignores a trailing slash on either side', async () => {
    const pid = await project();
    await endpoint(pid, { method: 'GET', path: '/a/:id', responseBody: 'a {{request.params.id}}' });
    await endpoint(pid, { method: 'GET', path: '/b/', responseBody: 'b' });
    expect((await c.mock(pid, 'GET', '/a/1/')).text).toBe('a 1');
    expect((await c.mock(pid, 'GET', '/a/1')).text).toBe('a 1');
    expect((await c.mock(pid, 'GET', '/b')).text).toBe('b');
    expect((await c.mock(pid, 'GET', '/b/')).text).toBe('b');
  });

  it('serves the root path and matches methods exactly', async () => {
    const pid = await project();
    await endpoint(pid, { method: 'GET', path: '/', responseBody: 'root' });
    await endpoint(pid, { method: 'DELETE', path: '/things/:id', statusCode: 204 });
    await endpoint(pid, { method: 'PATCH', path: '/things/:id', responseBody: '{{request.body}}' });
    expect((await c.mock(pid, 'GET', '/')).text).toBe('root');
    expect((await request(`${c.base}/m/${pid}`)).text).toBe('root');
    expect((await c.mock(pid, 'DELETE', '/things/3')).status).toBe(204);
    const patched = await c.mock(pid, 'PATCH', '/things/3', { body: '{"a":1}' });
    expect(patched).toMatchObject({ status: 200, text: '{"a":1}' });
    expectError(await c.mock(pid, 'GET', '/things/3'), 404, 'mock_not_found');
    expectError(await c.mock(pid, 'POST', '/'), 404, 'mock_not_found');
  });

  it('answers 404 mock_not_found, with CORS, for an unknown project or path', async () => {
    const pid = await project();
    await endpoint(pid, { method: 'GET', path: '/known' });
    for (const r of [
      await c.mock(pid, 'GET', '/unknown'),
      await c.mock(pid, 'GET', '/known/deeper'),
      await c.mock('no-such-project', 'GET', '/known'),
      await request(`${c.base}/m/`),
    ]) {
      expectError(r, 404, 'mock_not_found');
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
    }
  });

  describe('CORS', () => {
    it('every mock answer carries Access-Control-Allow-Origin: *', async () => {
      const pid = await project();
      const e = await endpoint(pid, { method: 'POST', path: '/cors', statusCode: 201 });
      await c.rule(u.token, pid, e.id, {
        name: 'teapot',
        conditions: [{ target: 'header', key: 'x-tea', operator: 'exists' }],
        response: { steps: [{ statusCode: 418, body: 'short and stout', headers: { 'x-kind': 'teapot' } }] },
      });
      const plain = await c.mock(pid, 'POST', '/cors', { headers: { origin: 'https://app.example' } });
      expect(plain.status).toBe(201);
      expect(plain.headers.get('access-control-allow-origin')).toBe('*');
      const ruled = await c.mock(pid, 'POST', '/cors', { headers: { origin: 'https://app.example', 'x-tea': '1' } });
      expect(ruled.status).toBe(418);
      expect(ruled.headers.get('x-kind')).toBe('teapot');
      expect(ruled.headers.get('access-control-allow-origin')).toBe('*');
    });

    it('an OPTIONS preflight with no OPTIONS endpoint is answered 204 with permissive CORS headers', async () => {
      const pid = await project();
      await endpoint(pid, { method: 'PUT', path: '/things/:id' });
      const r = await c.mock(pid, 'OPTIONS', '/things/1', {
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'PUT',
          'access-control-request-headers': 'content-type, x-custom',
        },
      });
      expect(r.status).toBe(204);
      expect(r.text).toBe('');
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(r.headers.get('access-control-allow-methods') ?? '').toMatch(/PUT|\*/);
      const allowHeaders = (r.headers.get('access-control-allow-headers') ?? '').toLowerCase();
      expect(allowHeaders === '*' || (allowHeaders.includes('content-type') && allowHeaders.includes('x-custom'))).toBe(
        true,
      );
      // a preflight for a path with no endpoint at all is answered too
      const any = await c.mock(pid, 'OPTIONS', '/nothing/here', {
        headers: { origin: 'https://app.example', 'access-control-request-method': 'DELETE' },
      });
      expect(any.status).toBe(204);
      expect(any.headers.get('access-control-allow-origin')).toBe('*');
    });

    it('an OPTIONS endpoint, when there is one, answers instead', async () => {
      const pid = await project();
      await endpoint(pid, { method: 'OPTIONS', path: '/opt', statusCode: 200, responseBody: 'custom options' });
      const r = await c.mock(pid, 'OPTIONS', '/opt', { headers: { 'access-control-request-method': 'GET' } });
      expect(r).toMatchObject({ status: 200, text: 'custom options' });
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
    });
  });

  describe('a management change is in effect for the very next mock request', () => {
    it('endpoint create, update, delete', async () => {
      const pid = await project();
      for (let i = 0; i < 5; i++) {
        expectError(await c.mock(pid, 'GET', '/live'), 404, 'mock_not_found');
        const e = await endpoint(pid, { method: 'GET', path: '/live', responseBody: `v${i}` });
        expect((await c.mock(pid, 'GET', '/live')).text).toBe(`v${i}`);
        await c.api('PATCH', epUrl(pid, e.id), { statusCode: 500 + i, responseBody: `w${i}` }, u.token);
        expect(await c.mock(pid, 'GET', '/live')).toMatchObject({ status: 500 + i, text: `w${i}` });
        await c.api('PATCH', epUrl(pid, e.id), { path: '/moved' }, u.token);
        expectError(await c.mock(pid, 'GET', '/live'), 404, 'mock_not_found');
        expect((await c.mock(pid, 'GET', '/moved')).status).toBe(500 + i);
        await c.api('PATCH', epUrl(pid, e.id), { path: '/live' }, u.token);
        expect((await c.mock(pid, 'GET', '/live')).status).toBe(500 + i);
        expect((await c.api('DELETE', epUrl(pid, e.id), undefined, u.token)).status).toBe(204);
      }
      expectError(await c.mock(pid, 'GET', '/live'), 404, 'mock_not_found');
    });

    it('rule create, toggle, update, reset, delete', async () => {
      const pid = await project();
      const e = await endpoint(pid, { method: 'GET', path: '/r', responseBody: 'default' });
      expect((await c.mock(pid, 'GET', '/r')).text).toBe('default');
      const rule = await c.rule(u.token, pid, e.id, {
        name: 'seq',
        response: {
          mode: 'loop',
          steps: [
            { statusCode: 201, body: 'one' },
            { statusCode: 202, body: 'two' },
          ],
        },
      });
      const rurl = `${epUrl(pid, e.id)}/rules/${rule.id}`;
      expect((await c.mock(pid, 'GET', '/r')).text).toBe('one');
      await c.api('PATCH', rurl, { active: false }, u.token);
      expect((await c.mock(pid, 'GET', '/r')).text).toBe('default');
      await c.api('PATCH', rurl, { active: true }, u.token);
      expect((await c.mock(pid, 'GET', '/r')).text).toBe('two');
      expect((await c.api('POST', `${rurl}/reset`, undefined, u.token)).status).toBe(200);
      expect((await c.mock(pid, 'GET', '/r')).text).toBe('one');
      await c.api(
        'PATCH',
        rurl,
        { conditions: [{ target: 'query', key: 'v', operator: 'equals', value: 'x' }] },
        u.token,
      );
      expect((await c.mock(pid, 'GET', '/r')).text).toBe('default');
      expect((await c.mock(pid, 'GET', '/r', { query: 'v=x' })).text).toBe('two');
      await c.api('PATCH', rurl, { response: { steps: [{ statusCode: 299, body: 'new' }] } }, u.token);
      expect(await c.mock(pid, 'GET', '/r', { query: 'v=x' })).toMatchObject({ status: 299, text: 'new' });
      expect((await c.api('DELETE', rurl, undefined, u.token)).status).toBe(204);
      expect((await c.mock(pid, 'GET', '/r', { query: 'v=x' })).text).toBe('default');
    });

    it('storage clear', async () => {
      const pid = await project();
      const e = await endpoint(pid, { method: 'GET', path: '/count', responseBody: 'last={{endpoint.last}}' });
      await c.rule(u.token, pid, e.id, {
        name: 'remember',
        conditions: [{ target: 'query', key: 'v', operator: 'exists' }],
        actions: [{ type: 'store_variable', name: 'last', value: '{{request.query.v}}' }],
      });
      expect((await c.mock(pid, 'GET', '/count', { query: 'v=a' })).text).toBe('last=a');
      expect((await c.mock(pid, 'GET', '/count', { query: 'v=b' })).text).toBe('last=b');
      expect((await c.mock(pid, 'GET', '/count')).text).toBe('last=b');
      expect((await c.api('DELETE', `${epUrl(pid, e.id)}/storage`, undefined, u.token)).status).toBe(204);
      expect((await c.mock(pid, 'GET', '/count')).text).toBe('last=');
      expect((await c.mock(pid, 'GET', '/count', { query: 'v=c' })).text).toBe('last=c');
    });

    it('project delete', async () => {
      const pid = await project();
      await endpoint(pid, { method: 'GET', path: '/bye' });
      expect((await c.mock(pid, 'GET', '/bye')).status).toBe(200);
      expect((await c.api('DELETE', `/api/projects/${pid}`, undefined, u.token)).status).toBe(204);
      expectError(await c.mock(pid, 'GET', '/bye'), 404, 'mock_not_found');
    });
  });
});
