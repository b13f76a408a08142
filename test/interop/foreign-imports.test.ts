/**
 * Imports of other tools' files (docs/interop.md): WireMock, Mockoon, Postman and HAR documents in each
 * tool's own syntax, checked through the mock URLs they produce; format detection; the report.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAR, MOCKOON, POSTMAN, WIREMOCK } from '../fixtures/peers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('imports of other tools’ files (sqlite)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
  });
  afterAll(() => s.close());

  async function setup(plan = 'business') {
    const u = await s.client.user();
    const set = await s.client.api('PATCH', `/api/admin/users/${u.id}`, { plan }, s.client.adminToken);
    expect(set.status).toBe(200);
    const p = await s.client.project(u.token);
    return { token: u.token, pid: p.id };
  }
  const importTo = (token: string, pid: string, format: string, doc: unknown, query = '') =>
    s.client.api('POST', `/api/projects/${pid}/import${format ? `/${format}` : ''}${query}`, doc, token);

  it('WireMock: a scenario advances, URL patterns, matchers, templates, faults and priorities translate', async () => {
    const { token, pid } = await setup();
    const r = await importTo(token, pid, 'wiremock', WIREMOCK);
    expect(r.status).toBe(200);
    expect(r.json.format).toBe('wiremock');
    expect(r.json.created.map((e: { method: string; path: string }) => `${e.method} ${e.path}`).sort()).toEqual([
      'GET /broken',
      'GET /todo/items',
      'GET /users/*',
      'POST /orders',
      'POST /todo/items',
    ]);
    // the JSONPath filter has no condition: its rule is imported inactive, with a warning at its pointer
    expect(r.json.warnings).toContainEqual({
      pointer: '/mappings/5/request/bodyPatterns/0',
      message: expect.stringContaining('inactive'),
    });
    expect(r.json.warnings).toContainEqual({
      pointer: '/mappings/6/request/bodyPatterns/0',
      message: expect.stringContaining('equalToJson'),
    });

    const m = (method: string, path: string, opts = {}) => s.client.mock(pid, method, path, opts);
    expect((await m('GET', '/todo/items')).json).toEqual({ items: ['Buy milk'] });
    expect((await m('POST', '/todo/items', { body: 'nothing' })).status).toBe(404);
    expect((await m('POST', '/todo/items', { body: 'Cancel newspaper subscription' })).status).toBe(201);
    expect((await m('GET', '/todo/items')).json).toEqual({ items: ['Buy milk', 'Cancel newspaper subscription'] });
    // the state is project storage, visible in the API
    const storage = await s.client.api('GET', `/api/projects/${pid}/storage`, undefined, token);
    expect(storage.json).toEqual({ scenario_To_do_list: 'Cancel newspaper item added' });

    const full = await m('GET', '/users/42', { query: 'view=full', headers: { 'x-tenant': 'acme-eu' } });
    expect(full.headers.get('x-source')).toBe('wiremock');
    expect(full.json).toMatchObject({ path: '/users/42', view: 'full' });
    expect(full.json.id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await m('GET', '/users/42', { query: 'view=full' })).text).toBe('short user');
    expect((await m('GET', '/users/abc')).status).toBe(404);

    expect((await m('POST', '/orders', { body: '{"kind":"gift","total":9}' })).status).toBe(201);
    expect((await m('POST', '/orders', { body: '{"kind":"plain"}' })).status).toBe(404);
    await expect(m('GET', '/broken')).rejects.toThrow();
    // a single stub is a document too
    const one = await importTo(token, pid, 'wiremock', {
      request: { method: 'PUT', url: '/one' },
      response: { status: 204 },
    });
    expect(one.json.created).toHaveLength(1);
    expect((await m('PUT', '/one')).status).toBe(204);
  });

  it('Mockoon: SEQUENTIAL loops, OR/AND/invert rules, templates, CRUD routes on a data bucket', async () => {
    const { token, pid } = await setup();
    const r = await importTo(token, pid, 'mockoon', MOCKOON);
    expect(r.status).toBe(200);
    expect(r.json.format).toBe('mockoon');
    expect(r.json.created).toHaveLength(8);
    const m = (method: string, path: string, opts = {}) => s.client.mock(pid, method, path, opts);
    const states = [];
    for (let i = 0; i < 3; i++) {
      const a = await m('GET', '/api/status');
      states.push(`${a.status} ${a.json.state}`);
    }
    expect(states).toEqual(['200 one', '503 two', '200 one']);

    const vip = await m('GET', '/api/products/3', { headers: { 'x-tier': 'vip' } });
    expect(vip.json).toMatchObject({ id: '3', tier: 'vip' });
    expect(vip.json.name.length).toBeGreaterThan(0);
    expect((await m('GET', '/api/products/3', { query: 'tier=gold' })).json.tier).toBe('');
    expect((await m('GET', '/api/products/7', { headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    expect((await m('GET', '/api/products/7', { headers: { 'content-type': 'application/json' } })).json).toEqual({
      id: '7',
    });
    expect((await m('GET', '/api/products/8', { headers: { 'content-type': 'text/plain' } })).json).toEqual({
      id: '8',
    });

    expect((await m('GET', '/api/users')).json).toEqual([
      { id: '1', name: 'Ada' },
      { id: '2', name: 'Lin' },
    ]);
    expect((await m('POST', '/api/users', { body: '{"id":"3","name":"Bo"}' })).status).toBe(201);
    expect((await m('GET', '/api/users/3')).json).toEqual({ id: '3', name: 'Bo' });
    const cols = await s.client.api('GET', `/api/projects/${pid}/collections`, undefined, token);
    expect(cols.json.map((c: { name: string }) => c.name)).toEqual(['Users']);
  });

  it('Postman: examples matched by path and query, picked by x-mock-response-name, the 2xx one by default', async () => {
    const { token, pid } = await setup();
    const r = await importTo(token, pid, 'postman', POSTMAN);
    expect(r.status).toBe(200);
    expect(r.json.created.map((e: { method: string; path: string }) => `${e.method} ${e.path}`)).toEqual([
      'GET /users/:id',
      'GET /search',
    ]);
    const m = (method: string, path: string, opts = {}) => s.client.mock(pid, method, path, opts);
    expect((await m('GET', '/users/1')).json).toEqual({ id: 1, name: 'Ada' });
    const missing = await m('GET', '/users/999');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ error: 'no such user' });
    expect((await m('GET', '/users/5')).status).toBe(200);
    expect((await m('GET', '/users/5', { headers: { 'x-mock-response-name': 'Missing' } })).status).toBe(404);
    expect((await m('GET', '/users/5', { headers: { 'x-mock-response-code': '404' } })).status).toBe(404);
    expect((await m('GET', '/search', { query: 'q=cats' })).json).toEqual(['tom']);
  });

  it('HAR: entries split by query and body become rules, repeated captures a sequence', async () => {
    const { token, pid } = await setup();
    const r = await importTo(token, pid, 'har', HAR);
    expect(r.status).toBe(200);
    expect(r.json.created.map((e: { method: string; path: string }) => `${e.method} ${e.path}`)).toEqual([
      'GET /search',
      'POST /login',
      'GET /jobs/1',
    ]);
    const m = (method: string, path: string, opts = {}) => s.client.mock(pid, method, path, opts);
    expect((await m('GET', '/search', { query: 'q=a' })).json).toEqual(['a1']);
    expect((await m('GET', '/search', { query: 'q=b' })).json).toEqual(['b1']);
    const plain = await m('GET', '/search');
    expect(plain.json).toEqual([]);
    expect(plain.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect((await m('POST', '/login', { body: '{"user":"ada"}' })).json).toEqual({ token: 't1' });
    expect((await m('POST', '/login', { body: '{ "user": "eve" }' })).status).toBe(401);
    const jobs = [];
    for (let i = 0; i < 3; i++) jobs.push((await m('GET', '/jobs/1')).json.state);
    expect(jobs).toEqual(['queued', 'done', 'done']);
  });

  it('detects the format, refuses what it does not know, and follows onConflict', async () => {
    const { token, pid } = await setup();
    const formats: [unknown, string][] = [
      [WIREMOCK, 'wiremock'],
      [MOCKOON, 'mockoon'],
      [POSTMAN, 'postman'],
      [HAR, 'har'],
      [
        {
          openapi: '3.0.3',
          info: { title: 't', version: '1' },
          paths: { '/oa': { get: { responses: { 204: { description: 'x' } } } } },
        },
        'openapi',
      ],
      [
        {
          swagger: '2.0',
          info: { title: 't', version: '1' },
          paths: { '/sw': { get: { responses: { 200: { description: 'x' } } } } },
        },
        'swagger',
      ],
      [{ mockyard: 1, project: { name: 'x' }, endpoints: [{ method: 'GET', path: '/my', rules: [] }] }, 'mockyard'],
    ];
    for (const [doc, format] of formats) {
      const p = await s.client.project(token, format);
      const r = await importTo(token, p.id, '', doc);
      expect(r.status, `${format}: ${r.text}`).toBe(200);
      expect(r.json.format).toBe(format);
      expect(r.json.created.length).toBeGreaterThan(0);
    }
    const unknown = await importTo(token, pid, '', { hello: 'world' });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.code).toBe('unknown_format');
    const wrong = await importTo(token, pid, 'har', MOCKOON);
    expect(wrong.status).toBe(400);
    expect(wrong.json.error.code).toBe('validation_failed');

    expect((await importTo(token, pid, 'har', HAR)).status).toBe(200);
    const again = await importTo(token, pid, 'har', HAR);
    expect(again.status).toBe(409);
    expect(again.json.error.details[0].path).toBe('/log/entries/0');
    const skipped = await importTo(token, pid, 'har', HAR, '?onConflict=skip');
    expect(skipped.json.created).toEqual([]);
    expect(skipped.json.skipped).toHaveLength(3);
    const replaced = await importTo(token, pid, '', WIREMOCK, '?onConflict=replace');
    expect(replaced.status).toBe(200);
  });

  it('keeps a free plan’s rule limit: extra rules are warnings, not errors', async () => {
    const { token, pid } = await setup('free');
    const stubs = Array.from({ length: 5 }, (_, i) => ({
      request: { method: 'GET', urlPath: '/q', queryParameters: { n: { equalTo: String(i) } } },
      response: { status: 200, body: `n${i}` },
    }));
    const r = await importTo(token, pid, 'wiremock', { mappings: stubs });
    expect(r.status).toBe(200);
    const limited = r.json.warnings.filter((w: { message: string }) => w.message.includes('plan allows 3'));
    expect(limited).toHaveLength(2);
    expect(limited[0].pointer).toMatch(/^\/mappings\/\d$/);
  });
});
