/**
 * Data collections served as REST resources (docs/stateful-mocks.md): the collections API, `POST …/resources`,
 * the six operations with filters, sort, paging and X-Total-Count, per-session copies from the
 * seed with reset, rules of a bound endpoint first, and writes exact under concurrency.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { expectError, expectValidation, UUID7 } from '../helpers/expect.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const SEED = [
  { id: 1, name: 'Ada', role: 'admin', age: 36 },
  { id: 2, name: 'Alan', role: 'user', age: 41 },
  { id: 3, name: 'Grace', role: 'admin', age: 85 },
];

describe.each(DIALECTS)('collections (%s)', (dialect) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(dialect);
  });
  afterAll(() => s.close());

  async function users() {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const made = await c.api('POST', `/api/projects/${p.id}/collections`, { name: 'users', seed: SEED }, u.token);
    expect(made.status).toBe(201);
    const res = await c.api(
      'POST',
      `/api/projects/${p.id}/resources`,
      { collection: 'users', path: '/api/users' },
      u.token,
    );
    expect(res.status).toBe(201);
    return { u, p, resources: res.json };
  }
  const json = { 'content-type': 'application/json' };

  it('the collections API: create, read, 409 on a second of one name, update, delete', async () => {
    const c = s.client;
    const { u, p, resources } = await users();
    const base = `/api/projects/${p.id}/collections`;
    const one = await c.api('GET', `${base}/users`, undefined, u.token);
    expect(one.json).toMatchObject({ name: 'users', idField: 'id', seed: SEED });
    expect((await c.api('GET', base, undefined, u.token)).json.map((x: { name: string }) => x.name)).toEqual(['users']);
    expectError(await c.api('POST', base, { name: 'users' }, u.token), 409, 'conflict');
    expectValidation(await c.api('POST', base, { name: 'bad name!' }, u.token), '/name');
    expectValidation(await c.api('POST', base, { name: 'dup', seed: [{ id: 1 }, { id: 1 }] }, u.token), '/seed/1/id');
    // an item without an id gets one
    const gen = await c.api('POST', base, { name: 'notes', seed: [{ text: 'a' }] }, u.token);
    expect(gen.json.seed[0].id).toMatch(UUID7);
    // resources: six endpoints bound to the collection
    expect(
      resources.created.map((e: { method: string; path: string; data: { operation: string } }) => [
        e.method,
        e.path,
        e.data.operation,
      ]),
    ).toEqual([
      ['GET', '/api/users', 'list'],
      ['POST', '/api/users', 'create'],
      ['GET', '/api/users/:id', 'get'],
      ['PUT', '/api/users/:id', 'replace'],
      ['PATCH', '/api/users/:id', 'update'],
      ['DELETE', '/api/users/:id', 'delete'],
    ]);
    const again = await c.api(
      'POST',
      `/api/projects/${p.id}/resources`,
      { collection: 'users', path: '/api/users' },
      u.token,
    );
    expect([again.status, again.json.created.length, again.json.skipped.length]).toEqual([201, 0, 6]);
    expectError(
      await c.api('POST', `/api/projects/${p.id}/resources`, { collection: 'nope', path: '/x' }, u.token),
      404,
      'not_found',
    );
    const other = await c.user();
    expectError(await c.api('GET', `${base}/users`, undefined, other.token), 404, 'not_found');
    expect((await c.api('DELETE', `${base}/notes`, undefined, u.token)).status).toBe(204);
    expectError(await c.api('GET', `${base}/notes`, undefined, u.token), 404, 'not_found');
  });

  it('list filters as text, sorts, pages and counts; get, create, replace, update and delete', async () => {
    const c = s.client;
    const { p } = await users();
    const list = await c.mock(p.id, 'GET', '/api/users');
    expect([list.status, list.json, list.headers.get('x-total-count')]).toEqual([200, SEED, '3']);
    const admins = await c.mock(p.id, 'GET', '/api/users', { query: 'role=admin&_sort=-age&_limit=1' });
    expect([admins.json, admins.headers.get('x-total-count')]).toEqual([[SEED[2]], '2']);
    expect((await c.mock(p.id, 'GET', '/api/users', { query: 'age=41' })).json).toEqual([SEED[1]]);
    expect(
      (await c.mock(p.id, 'GET', '/api/users', { query: '_sort=name&_offset=1' })).json.map(
        (x: { name: string }) => x.name,
      ),
    ).toEqual(['Alan', 'Grace']);

    expect((await c.mock(p.id, 'GET', '/api/users/2')).json).toEqual(SEED[1]);
    expectError(await c.mock(p.id, 'GET', '/api/users/9'), 404, 'not_found');

    const made = await c.mock(p.id, 'POST', '/api/users', { headers: json, body: '{"name":"Linus"}' });
    expect(made.status).toBe(201);
    expect(made.json.id).toMatch(UUID7);
    // ids are time-ordered (docs/api.md): a later create's id sorts after, and reads the time it was made
    const before = Date.now();
    const next = await c.mock(p.id, 'POST', '/api/users', { headers: json, body: '{"name":"Dennis"}' });
    expect(next.json.id > made.json.id).toBe(true);
    const ms = Number.parseInt(next.json.id.replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before - 1);
    expect(ms).toBeLessThanOrEqual(Date.now() + 1);
    // a made id, still in SQLite's journal of creates (store/hot/sqlite-collections.ts), is taken for
    // a create that gives it, and found by id
    const taken = JSON.stringify({ id: next.json.id, name: 'again' });
    expectError(await c.mock(p.id, 'POST', '/api/users', { headers: json, body: taken }), 409, 'conflict');
    expect((await c.mock(p.id, 'GET', `/api/users/${made.json.id}`)).json).toEqual(made.json);
    expect((await c.mock(p.id, 'DELETE', `/api/users/${next.json.id}`)).status).toBe(204);
    const kept = await c.mock(p.id, 'POST', '/api/users', { headers: json, body: '{"id":"u7","name":"Ken"}' });
    expect([kept.status, kept.json]).toEqual([201, { id: 'u7', name: 'Ken' }]);
    expectError(await c.mock(p.id, 'POST', '/api/users', { headers: json, body: '{"id":1}' }), 409, 'conflict');
    for (const body of [undefined, 'not json', '[1]', '"s"', '5', 'null'])
      expectError(await c.mock(p.id, 'POST', '/api/users', { headers: json, body }), 400, 'invalid_body');

    const replaced = await c.mock(p.id, 'PUT', '/api/users/1', { headers: json, body: '{"id":99,"name":"Ada L."}' });
    expect([replaced.status, replaced.json]).toEqual([200, { id: 1, name: 'Ada L.' }]);
    const updated = await c.mock(p.id, 'PATCH', '/api/users/2', { headers: json, body: '{"age":42}' });
    expect(updated.json).toEqual({ ...SEED[1], age: 42 });
    expectError(await c.mock(p.id, 'PATCH', '/api/users/9', { headers: json, body: '{}' }), 404, 'not_found');
    expect((await c.mock(p.id, 'DELETE', '/api/users/3')).status).toBe(204);
    expectError(await c.mock(p.id, 'DELETE', '/api/users/3'), 404, 'not_found');
    // insertion order, seed first
    expect((await c.mock(p.id, 'GET', '/api/users')).json.map((x: { name: string }) => x.name)).toEqual([
      'Ada L.',
      'Alan',
      'Linus',
      'Ken',
    ]);
  });

  it('a body’s own __proto__ is a field of the item on create, replace and update, never its prototype', async () => {
    const c = s.client;
    const { p } = await users();
    const made = await c.mock(p.id, 'POST', '/api/users', {
      headers: json,
      body: '{"__proto__":{"role":"admin"},"name":"Mallory"}',
    });
    expect(made.status).toBe(201);
    expect(made.text).toBe(`{"__proto__":{"role":"admin"},"name":"Mallory","id":"${made.json.id}"}`);
    expect((await c.mock(p.id, 'GET', `/api/users/${made.json.id}`)).text).toBe(made.text);
    // the filters read own fields: the item has no role of its own
    expect(
      (await c.mock(p.id, 'GET', '/api/users', { query: 'role=admin' })).json.map((x: { id: unknown }) => x.id),
    ).toEqual([1, 3]);
    const patched = await c.mock(p.id, 'PATCH', '/api/users/2', { headers: json, body: '{"__proto__":{"age":0}}' });
    expect(patched.text).toBe('{"id":2,"name":"Alan","role":"user","age":41,"__proto__":{"age":0}}');
    const replaced = await c.mock(p.id, 'PUT', '/api/users/3', {
      headers: json,
      body: '{"__proto__":null,"name":"G"}',
    });
    expect(replaced.text).toBe('{"__proto__":null,"name":"G","id":3}');

    // a seed item without an id keeps its own __proto__ too (the seed's ids are made by the same copy)
    const u = await c.user();
    const q = await c.project(u.token);
    const seeded = JSON.parse('{"name":"notes","seed":[{"__proto__":{"x":1},"v":1}]}') as Record<string, unknown>;
    expect((await c.api('POST', `/api/projects/${q.id}/collections`, seeded, u.token)).status).toBe(201);
    const bound = { collection: 'notes', path: '/notes' };
    expect((await c.api('POST', `/api/projects/${q.id}/resources`, bound, u.token)).status).toBe(201);
    const listed = await c.mock(q.id, 'GET', '/notes');
    expect(listed.text).toBe(`[{"__proto__":{"x":1},"v":1,"id":"${listed.json[0].id}"}]`);
    expect(listed.json[0].id).toMatch(UUID7);
  });

  it('each session has its own copy from the seed; reset one session or all; the log names the operation', async () => {
    const c = s.client;
    const { u, p } = await users();
    const sess = (id: string) => ({ ...json, 'x-mockyard-session': id });
    await c.mock(p.id, 'POST', '/api/users', { headers: sess('a'), body: '{"id":"a1"}' });
    await c.mock(p.id, 'DELETE', '/api/users/1', { headers: sess('b') });
    expect((await c.mock(p.id, 'GET', '/api/users', { headers: sess('a') })).json).toHaveLength(4);
    expect((await c.mock(p.id, 'GET', '/api/users', { headers: sess('b') })).json).toHaveLength(2);
    expect((await c.mock(p.id, 'GET', '/api/users')).json).toEqual(SEED);
    const items = (session: string) =>
      c.api('GET', `/api/projects/${p.id}/collections/users/items?session=${session}`, undefined, u.token);
    expect((await items('a')).json).toHaveLength(4);
    expect(
      (await c.api('POST', `/api/projects/${p.id}/collections/users/reset?session=a`, undefined, u.token)).status,
    ).toBe(204);
    expect((await items('a')).json).toEqual(SEED);
    expect((await items('b')).json).toHaveLength(2);
    await c.api('POST', `/api/projects/${p.id}/collections/users/reset`, undefined, u.token);
    expect((await items('b')).json).toEqual(SEED);
    const [entry] = (await c.api('GET', `/api/projects/${p.id}/requests?limit=1`, undefined, u.token)).json;
    expect(entry.data).toEqual({ collection: 'users', operation: 'list' });
  });

  it('a bound endpoint runs its rules first; {{collection.NAME.count}} renders the session’s count', async () => {
    const c = s.client;
    const { u, p, resources } = await users();
    const create = resources.created.find((e: { method: string }) => e.method === 'POST');
    await c.rule(u.token, p.id, create.id, {
      conditions: [{ target: 'header', key: 'x-fail', operator: 'exists' }],
      response: { steps: [{ statusCode: 503, body: 'down' }] },
    });
    const failed = await c.mock(p.id, 'POST', '/api/users', {
      headers: { ...json, 'x-fail': '1' },
      body: '{"id":"z"}',
    });
    expect([failed.status, failed.text]).toEqual([503, 'down']);
    expect((await c.mock(p.id, 'GET', '/api/users')).json).toHaveLength(3);
    await c.endpoint(u.token, p.id, {
      method: 'GET',
      path: '/stats',
      responseBody: '{"users":{{collection.users.count}}}',
    });
    expect((await c.mock(p.id, 'GET', '/stats')).json).toEqual({ users: 3 });
    await c.mock(p.id, 'POST', '/api/users', { headers: { ...json, 'x-mockyard-session': 'c' }, body: '{}' });
    expect((await c.mock(p.id, 'GET', '/stats', { headers: { 'x-mockyard-session': 'c' } })).json).toEqual({
      users: 4,
    });
  });

  it('concurrent creates and updates lose nothing', async () => {
    const c = s.client;
    const { p } = await users();
    const made = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        c.mock(p.id, 'POST', '/api/users', { headers: json, body: JSON.stringify({ id: `n${i}` }) }),
      ),
    );
    expect(made.every((r) => r.status === 201)).toBe(true);
    const all = await c.mock(p.id, 'GET', '/api/users');
    expect(all.headers.get('x-total-count')).toBe('63');
    // the same id at once: exactly one wins
    const race = await Promise.all(
      Array.from({ length: 10 }, () => c.mock(p.id, 'POST', '/api/users', { headers: json, body: '{"id":"same"}' })),
    );
    expect(race.filter((r) => r.status === 201)).toHaveLength(1);
    expect(race.filter((r) => r.status === 409)).toHaveLength(9);
  });

  it('an endpoint can be bound on create and update; an id operation needs a route parameter', async () => {
    const c = s.client;
    const { u, p } = await users();
    const e = await c.api(
      'POST',
      `/api/projects/${p.id}/endpoints`,
      { method: 'GET', path: '/people', data: { collection: 'users', operation: 'list' } },
      u.token,
    );
    expect(e.json.data).toEqual({ collection: 'users', operation: 'list' });
    expect((await c.mock(p.id, 'GET', '/people')).json).toEqual(SEED);
    expectValidation(
      await c.api(
        'POST',
        `/api/projects/${p.id}/endpoints`,
        { method: 'GET', path: '/nobody', data: { collection: 'users', operation: 'get' } },
        u.token,
      ),
      '/data/operation',
    );
    const unbound = await c.api('PATCH', `/api/projects/${p.id}/endpoints/${e.json.id}`, { data: null }, u.token);
    expect(unbound.json.data).toBeNull();
    expect((await c.mock(p.id, 'GET', '/people')).text).toBe('');
  });

  it('an export carries collections, bindings and project storage; an import brings them back', async () => {
    const c = s.client;
    const { u, p } = await users();
    const f = await c.endpoint(u.token, p.id, { method: 'POST', path: '/remember' });
    await c.rule(u.token, p.id, f.id, {
      actions: [{ type: 'store_variable', scope: 'project', name: 'last', value: 'kept' }],
    });
    await c.mock(p.id, 'POST', '/remember');
    const doc = (await c.api('GET', `/api/projects/${p.id}/export?storage=true`, undefined, u.token)).json;
    expect(doc.collections).toEqual([{ name: 'users', idField: 'id', seed: SEED }]);
    expect(doc.projectStorage).toEqual({ last: 'kept' });
    const imported = await c.api('POST', '/api/projects/import', doc, u.token);
    expect(imported.status).toBe(201);
    const q = imported.json.id;
    expect((await c.mock(q, 'GET', '/api/users')).json).toEqual(SEED);
    expect((await c.api('GET', `/api/projects/${q}/storage`, undefined, u.token)).json).toEqual({ last: 'kept' });
    // a duplicate id in an imported seed is refused, nothing created
    const bad = { ...doc, collections: [{ name: 'users', seed: [{ id: 1 }, { id: 1 }] }] };
    expectValidation(await c.api('POST', '/api/projects/import', bad, u.token), '/collections/0/seed/1/id');
  });

  it('seed values may be templates ({{faker …}}): each new session copy renders them, seeded by X-Mockyard-Seed', async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const seed = [{ id: 1, name: '{{faker "person.firstName"}}', code: '{{faker "string.alpha" 6}}' }];
    expect((await c.api('POST', `/api/projects/${p.id}/collections`, { name: 'people', seed }, u.token)).status).toBe(
      201,
    );
    await c.api('POST', `/api/projects/${p.id}/resources`, { collection: 'people', path: '/people' }, u.token);
    const get = (session: string, seedHeader: string) =>
      c.mock(p.id, 'GET', '/people', { headers: { 'x-mockyard-session': session, 'x-mockyard-seed': seedHeader } });
    const a = (await get('s1', '5')).json[0];
    expect(a.name).not.toContain('{{');
    expect(a.code).toMatch(/^[A-Za-z]{6}$/);
    // a copy is made once: the same values on the next request of the session, whatever its seed
    expect((await get('s1', '9')).json[0]).toEqual(a);
    // another session with the same seed gets the same values
    expect((await get('s2', '5')).json[0]).toEqual(a);
    // the dashboard's read renders them too
    const items = await c.api('GET', `/api/projects/${p.id}/collections/people/items?session=s3`, undefined, u.token);
    expect(items.json[0].name).not.toContain('{{');
  });
});
