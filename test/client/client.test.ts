/**
 * The typed client `mockyard/client` (docs/testing.md) against a real server: every route of
 * /api/openapi.json has a client method (and no method calls a route the server does not have),
 * sessions are isolated and cleaned up, verify() fails with the nearest requests, fluent stubs.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Mockyard, MockyardError, routesOf, VerificationError } from '../../src/client/index.js';
import { WIREMOCK } from '../fixtures/peers.js';
import { ROOT, startTestServer, type TestServer } from '../helpers/server.js';

describe('mockyard/client', () => {
  let s: TestServer;
  let my: Mockyard;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
    const anon = new Mockyard({ baseUrl: s.client.base });
    const { token } = await anon.auth.register({ email: `c-${Date.now()}@example.test`, password: 'correct horse' });
    my = anon.withToken(token);
  });
  afterAll(() => s.close());

  it('has a method for every route of /api/openapi.json, and none for a route it lacks', async () => {
    const doc = (await s.client.api('GET', '/api/openapi.json')).json as {
      paths: Record<string, Record<string, unknown>>;
    };
    // /mcp is the Model Context Protocol's transport, for MCP clients (docs/agents.md), not a resource
    const served = Object.entries(doc.paths)
      .filter(([p]) => p !== '/mcp')
      .flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`))
      .sort();
    const client = [...new Set(routesOf(my))].sort();
    expect(client).toEqual(served);
    expect(served.length).toBeGreaterThan(50);
  });

  it('drives projects, endpoints, rules, collections and imports; errors are MockyardError', async () => {
    const p = await my.projects.create({ name: 'client' });
    expect(p.mockUrl).toBe(`/m/${p.slug}`);
    const e = await my.endpoints.create(p.id, {
      method: 'GET',
      path: '/hello',
      responseBody: 'hi',
      contentType: 'text/plain',
    });
    expect(await (await my.mock(p.id, '/hello')).text()).toBe('hi');
    const rule = await my.rules.create(p.id, e.id, {
      name: 'r',
      response: { steps: [{ statusCode: 201, body: 'one' }] },
    });
    expect((await my.rules.update(p.id, e.id, rule.id, { active: false })).active).toBe(false);
    expect((await my.endpoints.list(p.id)).map((x) => x.path)).toEqual(['/hello']);
    await my.collections.create(p.id, { name: 'users', seed: [{ id: '1', name: 'Ada' }] });
    const res = await my.collections.resources(p.id, { collection: 'users', path: '/users' });
    expect(res.created).toHaveLength(6);
    expect(await (await my.mock(p.id, '/users/1')).json()).toEqual({ id: '1', name: 'Ada' });
    const report = await my.imports.any(p.id, WIREMOCK);
    expect(report.format).toBe('wiremock');
    const err = await my.endpoints.get(p.id, 'nope').catch((x) => x);
    expect(err).toBeInstanceOf(MockyardError);
    expect(err).toMatchObject({ status: 404, code: 'not_found' });
    const dup = await my.endpoints.create(p.id, { method: 'GET', path: '/hello' }).catch((x) => x);
    expect(dup).toMatchObject({ status: 409, code: 'conflict' });
    const key = await my.keys.create({ name: 'ci', scope: 'read' });
    const ci = my.withToken(key.key);
    expect((await ci.projects.list()).map((x) => x.id)).toContain(p.id);
    await expect(ci.projects.create({ name: 'no' })).rejects.toMatchObject({ status: 403, code: 'forbidden' });
  });

  it('creates stubs fluently: an endpoint with conditional rules and sequences', async () => {
    const p = await my.projects.create({ name: 'fluent' });
    const { endpoint, rules } = await my
      .stub(p.id)
      .get('/users/:id')
      .json({ id: 1, tier: 'basic' })
      .rule('vip')
      .whenHeader('x-tier', 'vip')
      .respond(200, { id: 1, tier: 'vip' })
      .end()
      .rule('flaky')
      .whenQuery('flaky', '1')
      .respond(503, 'down')
      .respond(200, 'up')
      .holdLast()
      .end()
      .create();
    expect(endpoint.path).toBe('/users/:id');
    expect(rules.map((r) => r.name)).toEqual(['vip', 'flaky']);
    expect(await (await my.mock(p.id, '/users/1')).json()).toEqual({ id: 1, tier: 'basic' });
    expect(await (await my.mock(p.id, '/users/1', { headers: { 'x-tier': 'vip' } })).json()).toEqual({
      id: 1,
      tier: 'vip',
    });
    const flaky = [];
    for (let i = 0; i < 3; i++) flaky.push((await my.mock(p.id, '/users/1?flaky=1')).status);
    expect(flaky).toEqual([503, 200, 200]);
  });

  it('isolates sessions and cleans one up; verify() fails with a readable diff of the nearest requests', async () => {
    const p = await my.projects.create({ name: 'sessions' });
    await my
      .stub(p.id)
      .post('/orders')
      .status(201)
      .rule('count')
      .respond(201, 'first')
      .respond(201, 'again')
      .holdLast()
      .end()
      .create();
    const a = my.withSession(p.id);
    const b = my.withSession(p.id);
    expect(await (await a.mock('/orders', { method: 'POST' })).text()).toBe('first');
    expect(await (await a.mock('/orders', { method: 'POST' })).text()).toBe('again');
    expect(await (await b.mock('/orders', { method: 'POST' })).text()).toBe('first');
    await a.verify({ method: 'POST', path: '/orders' }, 2);
    await b.verify({ method: 'POST', path: '/orders' }, 1);
    await a.cleanup();
    expect(await a.count()).toBe(0);
    expect(await b.count()).toBe(1);
    expect(await (await a.mock('/orders', { method: 'POST' })).text()).toBe('first'); // sequence restarted

    await my.mock(p.id, '/orders/7', { method: 'GET' });
    const failed = await my.verify(p.id, { method: 'POST', path: '/orders/7' }, 1).catch((x) => x);
    expect(failed).toBeInstanceOf(VerificationError);
    expect(failed.actual).toBe(0);
    expect(failed.message).toContain('Expected 1 request(s) matching {"method":"POST","path":"/orders/7"}, found 0.');
    expect(failed.message).toContain('Nearest requests:');
    expect(failed.message).toMatch(/GET \/orders\/7 → 404 {2}\(method: expected "POST", got "GET"\)/);
    // the request took no endpoint: the near miss its 404 named is in the message too
    expect(failed.message).toMatch(/\n {4}no endpoint matched; nearest: POST \/orders \(.+\)/);
  });

  it('streams the request log', async () => {
    const p = await my.projects.create({ name: 'stream' });
    await my.endpoints.create(p.id, { method: 'GET', path: '/s' });
    const seen: string[] = [];
    const stream = await my.requests.stream(p.id, (e) => seen.push(e.path));
    try {
      await my.mock(p.id, '/s');
      const until = Date.now() + 5000;
      while (seen.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(seen).toEqual(['/s']);
    } finally {
      stream.close();
    }
  });

  it('is importable as mockyard/client from the package, with types', () => {
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { Mockyard } from 'mockyard/client'; const m = new Mockyard({ baseUrl: 'http://x' }); console.log(typeof m.projects.create, m.requests.count.route)",
      ],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(out.trim()).toBe('function POST /api/projects/{projectId}/requests/count');
  });
});
