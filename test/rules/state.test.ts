/**
 * State in rules (docs/stateful-mocks.mdfirst part): conditions on stored values and on this request's
 * variables, project storage shared by a project's endpoints, delete_variable, the project storage
 * routes — per mock session, and exact under concurrency on every database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { expectError, expectValidation } from '../helpers/expect.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe.each(DIALECTS)('state in rules (%s)', (dialect) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(dialect);
  });
  afterAll(() => s.close());

  /** A WireMock-style cart scenario: two endpoints sharing project state through three rules. */
  async function cart() {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const get = await c.endpoint(u.token, p.id, { method: 'GET', path: '/cart', responseBody: '{"items":[]}' });
    await c.rule(u.token, p.id, get.id, {
      name: 'full',
      conditions: [{ target: 'project', key: 'cart', operator: 'equals', value: 'full' }],
      response: { steps: [{ statusCode: 200, body: '{"items":["{{project.item}}"]}' }] },
    });
    const post = await c.endpoint(u.token, p.id, { method: 'POST', path: '/cart', statusCode: 201 });
    await c.rule(u.token, p.id, post.id, {
      name: 'fill',
      actions: [
        { type: 'store_variable', scope: 'project', name: 'cart', value: 'full' },
        { type: 'store_variable', scope: 'project', name: 'item', value: '{{request.body.item}}' },
      ],
    });
    const del = await c.endpoint(u.token, p.id, { method: 'DELETE', path: '/cart', statusCode: 204 });
    await c.rule(u.token, p.id, del.id, {
      name: 'empty',
      actions: [{ type: 'delete_variable', scope: 'project', name: 'cart' }],
    });
    return { u, p, get, post, del };
  }

  it('a scenario on project state: empty → POST → full → DELETE → empty, each session on its own', async () => {
    const c = s.client;
    const { p } = await cart();
    const session = (id: string) => ({ headers: { 'x-mockyard-session': id, 'content-type': 'application/json' } });
    expect((await c.mock(p.id, 'GET', '/cart', session('a'))).text).toBe('{"items":[]}');
    expect((await c.mock(p.id, 'POST', '/cart', { ...session('a'), body: '{"item":"apple"}' })).status).toBe(201);
    expect((await c.mock(p.id, 'GET', '/cart', session('a'))).text).toBe('{"items":["apple"]}');
    // another session (and the shared state) is still empty
    expect((await c.mock(p.id, 'GET', '/cart', session('b'))).text).toBe('{"items":[]}');
    expect((await c.mock(p.id, 'GET', '/cart')).text).toBe('{"items":[]}');
    expect((await c.mock(p.id, 'DELETE', '/cart', session('a'))).status).toBe(204);
    expect((await c.mock(p.id, 'GET', '/cart', session('a'))).text).toBe('{"items":[]}');
  });

  it('project storage routes read and clear one session or all, owner-scoped', async () => {
    const c = s.client;
    const { u, p } = await cart();
    await c.mock(p.id, 'POST', '/cart', { body: '{"item":"pear"}', headers: { 'content-type': 'application/json' } });
    await c.mock(p.id, 'POST', '/cart', {
      body: '{"item":"fig"}',
      headers: { 'content-type': 'application/json', 'x-mockyard-session': 's1' },
    });
    const path = `/api/projects/${p.id}/storage`;
    expect((await c.api('GET', path, undefined, u.token)).json).toEqual({ cart: 'full', item: 'pear' });
    expect((await c.api('GET', `${path}?session=s1`, undefined, u.token)).json).toEqual({ cart: 'full', item: 'fig' });
    expect((await c.api('DELETE', `${path}?session=s1`, undefined, u.token)).status).toBe(204);
    expect((await c.api('GET', `${path}?session=s1`, undefined, u.token)).json).toEqual({});
    expect((await c.api('GET', path, undefined, u.token)).json).toEqual({ cart: 'full', item: 'pear' });
    // in effect for the very next mock request
    expect((await c.mock(p.id, 'GET', '/cart')).text).toBe('{"items":["pear"]}');
    expect((await c.api('DELETE', path, undefined, u.token)).status).toBe(204);
    expect((await c.api('GET', path, undefined, u.token)).json).toEqual({});
    expect((await c.mock(p.id, 'GET', '/cart')).text).toBe('{"items":[]}');
    const other = await c.user();
    expectError(await c.api('GET', path, undefined, other.token), 404, 'not_found');
    expectError(await c.api('DELETE', path, undefined, other.token), 404, 'not_found');
  });

  it('conditions read this request’s variables and the endpoint’s storage', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'GET', path: '/tier', responseBody: 'default' });
    await c.rule(f.token, f.pid, f.eid, {
      name: 'classify',
      priority: 0,
      actions: [{ type: 'set_variable', name: 'tier', value: '{{default request.headers.x-tier "free"}}' }],
    });
    await c.rule(f.token, f.pid, f.eid, {
      name: 'vip',
      priority: 1,
      conditions: [{ target: 'vars', key: 'tier', operator: 'equals', value: 'vip' }],
      response: { steps: [{ statusCode: 200, body: 'welcome, vip' }] },
    });
    expect((await c.mock(f.pid, 'GET', '/tier', { headers: { 'x-tier': 'vip' } })).text).toBe('welcome, vip');
    expect((await c.mock(f.pid, 'GET', '/tier')).text).toBe('default');

    const g = await c.fixture({ method: 'GET', path: '/visits', responseBody: 'first' });
    await c.rule(g.token, g.pid, g.eid, {
      name: 'seen',
      priority: 0,
      conditions: [{ target: 'endpoint', key: 'seen', operator: 'exists' }],
      response: { steps: [{ statusCode: 200, body: 'again' }] },
    });
    await c.rule(g.token, g.pid, g.eid, {
      name: 'remember',
      priority: 1,
      actions: [{ type: 'store_variable', name: 'seen', value: 'yes' }],
    });
    expect((await c.mock(g.pid, 'GET', '/visits')).text).toBe('first');
    expect((await c.mock(g.pid, 'GET', '/visits')).text).toBe('again');
    // the trace of a failed state condition names it
    await c.api('DELETE', `/api/projects/${g.pid}/endpoints/${g.eid}/storage`, undefined, g.token);
    await c.mock(g.pid, 'GET', '/visits');
    const [entry] = (await c.api('GET', `/api/projects/${g.pid}/requests?limit=1`, undefined, g.token)).json;
    expect(entry.rules[0]).toMatchObject({ name: 'seen', matched: false, failedCondition: 0 });
  });

  it('project storage writes are exact under concurrency: 150 concurrent appends keep 150 items', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'POST', path: '/append', responseBody: '{{project.log}}' });
    await c.rule(f.token, f.pid, f.eid, {
      actions: [{ type: 'store_variable', scope: 'project', name: 'log', value: '{{project.log}}x' }],
    });
    await Promise.all(Array.from({ length: 150 }, () => c.mock(f.pid, 'POST', '/append')));
    const stored = await c.api('GET', `/api/projects/${f.pid}/storage`, undefined, f.token);
    expect(stored.json.log).toBe('x'.repeat(150));
  });

  it('{{faker …}} answers realistic values, the same ones for the same X-Mockyard-Seed', async () => {
    const c = s.client;
    const f = await c.fixture({
      method: 'GET',
      path: '/person',
      responseBody:
        '{"name":"{{faker "person.fullName"}}","email":"{{faker "internet.email"}}","n":{{faker "number.int" {"min":1,"max":6}}}}',
    });
    const seeded = async (seed: string) =>
      (await c.mock(f.pid, 'GET', '/person', { headers: { 'x-mockyard-seed': seed } })).json;
    const a = await seeded('7');
    expect(a.email).toMatch(/@/);
    expect(a.n).toBeGreaterThanOrEqual(1);
    expect(a.n).toBeLessThanOrEqual(6);
    expect(await seeded('7')).toEqual(a);
    const unseeded = await Promise.all(Array.from({ length: 6 }, () => c.mock(f.pid, 'GET', '/person')));
    expect(new Set(unseeded.map((r) => r.text)).size).toBeGreaterThan(1);
    // in an action value too
    const g = await c.fixture({ method: 'POST', path: '/signup', responseBody: '{{vars.id}}' });
    await c.rule(g.token, g.pid, g.eid, {
      actions: [{ type: 'set_variable', name: 'id', value: '{{faker "string.uuid"}}' }],
    });
    expect((await c.mock(g.pid, 'POST', '/signup')).text).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('validates state conditions and the new action fields', async () => {
    const c = s.client;
    const f = await c.fixture();
    const post = (body: Record<string, unknown>) =>
      c.api('POST', `/api/projects/${f.pid}/endpoints/${f.eid}/rules`, { name: 'r', ...body }, f.token);
    for (const target of ['endpoint', 'project', 'vars'])
      expectValidation(await post({ conditions: [{ target, operator: 'exists' }] }), '/conditions/0/key');
    expectValidation(await post({ actions: [{ type: 'store_variable', name: 'a', scope: 'session' }] }));
    expectValidation(await post({ actions: [{ type: 'delete_variable', name: 'a', value: 'x' }] }), '/actions/0/value');
    expectValidation(await post({ actions: [{ type: 'delete_variable' }] }), '/actions/0/name');
    const ok = await post({
      actions: [
        { type: 'store_variable', name: 'a', value: '1' },
        { type: 'delete_variable', name: 'a' },
      ],
    });
    expect(ok.status).toBe(201);
    // scope defaults to endpoint, and is shown only when it is project
    expect(ok.json.actions.map((a: { scope?: string }) => a.scope)).toEqual([undefined, undefined]);
    const project = await post({ actions: [{ type: 'store_variable', name: 'a', value: '1', scope: 'project' }] });
    expect(project.json.actions[0]).toEqual({
      type: 'store_variable',
      name: 'a',
      value: '1',
      scope: 'project',
      onError: 'continue',
    });
  });
});
