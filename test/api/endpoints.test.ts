/**
 * docs/api.md "Endpoints" over HTTP on every database: endpoint CRUD, defaults, validation, 409 conflicts,
 * partial updates, the rules of the single-record read, storage, and the cascade of a delete.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { expectError, expectValidation, ISO } from '../helpers/expect.js';
import { populate, rowsOf } from '../helpers/populate.js';
import { sleep, startTestServer, type TestClient, type TestServer } from '../helpers/server.js';

const FIELDS = [
  'contentType',
  'createdAt',
  'id',
  'method',
  'path',
  'projectId',
  'responseBody',
  'statusCode',
  'updatedAt',
];

describe.each(DIALECTS)('endpoints on %s', (dialect) => {
  let s: TestServer;
  let c: TestClient;
  let u: { token: string; id: string };
  beforeAll(async () => {
    s = await startTestServer(dialect);
    c = s.client;
    u = await c.user();
  });
  afterAll(async () => {
    await s?.close();
  });

  const base = (pid: string) => `/api/projects/${pid}/endpoints`;
  const newProject = async () => (await c.project(u.token, 'ep')).id;
  const create = (pid: string, body: unknown) => c.api('POST', base(pid), body, u.token);
  const list = async (pid: string) => (await c.api('GET', base(pid), undefined, u.token)).json;

  it('creates with the defaults: 200, empty body, application/json', async () => {
    const pid = await newProject();
    const r = await create(pid, { method: 'get', path: '/users/:id' });
    expect(r.status).toBe(201);
    for (const f of FIELDS) expect(r.json).toHaveProperty(f);
    expect(r.json).toMatchObject({
      projectId: pid,
      method: 'GET',
      path: '/users/:id',
      statusCode: 200,
      responseBody: '',
      contentType: 'application/json',
    });
    expect(r.json.createdAt).toMatch(ISO);
    expect(r.json.updatedAt).toMatch(ISO);
    const got = await c.api('GET', `${base(pid)}/${r.json.id}`, undefined, u.token);
    expect(got.status).toBe(200);
    expect(got.json).toEqual({ ...r.json, rules: [] });
  });

  it('creates with every field given, and lists oldest first', async () => {
    const pid = await newProject();
    const body = {
      method: 'Post',
      path: '/orders',
      statusCode: 202,
      responseBody: '{"ok":true,"id":"{{$uuid}}"}',
      contentType: 'application/vnd.api+json',
    };
    const a = await create(pid, body);
    expect(a.status).toBe(201);
    expect(a.json).toMatchObject({ ...body, method: 'POST' });
    const b = await create(pid, { method: 'GET', path: '/orders' });
    const cc = await create(pid, { method: 'DELETE', path: '/orders/:id' });
    const l = await list(pid);
    expect(l.map((e: { id: string }) => e.id)).toEqual([a.json.id, b.json.id, cc.json.id]);
    expect(l[0]).toEqual(a.json);
    expect(l[0]).not.toHaveProperty('rules');
  });

  it('accepts every method in any case and answers it upper case', async () => {
    const pid = await newProject();
    for (const m of ['get', 'POST', 'pUt', 'patch', 'Delete', 'head', 'options']) {
      const r = await create(pid, { method: m, path: '/m' });
      expect(r.status, r.text).toBe(201);
      expect(r.json.method).toBe(m.toUpperCase());
    }
    expect((await list(pid)).length).toBe(7);
  });

  it('accepts statusCode 100 and 599 and paths with params and a final *', async () => {
    const pid = await newProject();
    expect((await create(pid, { method: 'GET', path: '/a', statusCode: 100 })).json.statusCode).toBe(100);
    expect((await create(pid, { method: 'GET', path: '/b', statusCode: 599 })).json.statusCode).toBe(599);
    expect((await create(pid, { method: 'GET', path: '/' })).status).toBe(201);
    expect((await create(pid, { method: 'GET', path: '/files/*' })).status).toBe(201);
    expect((await create(pid, { method: 'GET', path: '/u/:user_id/posts/:post2' })).status).toBe(201);
  });

  it.each([
    ['no method', { path: '/x' }, '/method'],
    ['no path', { method: 'GET' }, '/path'],
    ['an unknown method', { method: 'FETCH', path: '/x' }, '/method'],
    ['a numeric method', { method: 1, path: '/x' }, '/method'],
    ['a path without a leading /', { method: 'GET', path: 'x' }, '/path'],
    ['an empty path', { method: 'GET', path: '' }, '/path'],
    ['* not last', { method: 'GET', path: '/a/*/b' }, '/path'],
    ['a parameter without a name', { method: 'GET', path: '/a/:' }, '/path'],
    ['statusCode 99', { method: 'GET', path: '/x', statusCode: 99 }, '/statusCode'],
    ['statusCode 600', { method: 'GET', path: '/x', statusCode: 600 }, '/statusCode'],
    ['a fractional statusCode', { method: 'GET', path: '/x', statusCode: 200.5 }, '/statusCode'],
    ['a string statusCode', { method: 'GET', path: '/x', statusCode: '200' }, '/statusCode'],
    ['a non-string responseBody', { method: 'GET', path: '/x', responseBody: { a: 1 } }, '/responseBody'],
    ['an empty contentType', { method: 'GET', path: '/x', contentType: '' }, '/contentType'],
    ['an unknown field', { method: 'GET', path: '/x', delay: 5 }, '/delay'],
  ])('answers 400 validation_failed for %s and creates nothing', async (_n, body, path) => {
    const pid = await newProject();
    expectValidation(await create(pid, body), path);
    expect(await list(pid)).toEqual([]);
  });

  it('ignores read-only fields on create', async () => {
    const pid = await newProject();
    const other = await newProject();
    const r = await create(pid, {
      method: 'GET',
      path: '/ro',
      id: 'mine',
      projectId: other,
      createdAt: '2000-01-01T00:00:00.000Z',
      updatedAt: '2000-01-01T00:00:00.000Z',
      rules: [{ name: 'sneaky' }],
    });
    expect(r.status).toBe(201);
    expect(r.json.id).not.toBe('mine');
    expect(r.json.projectId).toBe(pid);
    expect(r.json.createdAt).not.toBe('2000-01-01T00:00:00.000Z');
    expect(await list(other)).toEqual([]);
    const got = await c.api('GET', `${base(pid)}/${r.json.id}`, undefined, u.token);
    expect(got.json.rules).toEqual([]);
  });

  describe('409 conflict', () => {
    it('for the same method and path in one project, in any method case, with or without a trailing /', async () => {
      const pid = await newProject();
      expect((await create(pid, { method: 'GET', path: '/users/:id' })).status).toBe(201);
      for (const body of [
        { method: 'GET', path: '/users/:id' },
        { method: 'get', path: '/users/:id' },
        { method: 'GET', path: '/users/:id/' },
        { method: 'GET', path: '/users/:uid' },
      ]) {
        expectError(await create(pid, body), 409, 'conflict');
      }
      expect((await list(pid)).length).toBe(1);
      // another method, another path, or another project: no conflict
      expect((await create(pid, { method: 'POST', path: '/users/:id' })).status).toBe(201);
      expect((await create(pid, { method: 'GET', path: '/users/:id/posts' })).status).toBe(201);
      expect((await create(pid, { method: 'GET', path: '/users/me' })).status).toBe(201);
      expect((await create(await newProject(), { method: 'GET', path: '/users/:id' })).status).toBe(201);
    });

    it('for an update onto another endpoint’s method and path, which changes nothing', async () => {
      const pid = await newProject();
      const a = (await create(pid, { method: 'GET', path: '/a' })).json;
      const b = (await create(pid, { method: 'POST', path: '/a' })).json;
      expectError(await c.api('PATCH', `${base(pid)}/${b.id}`, { method: 'get' }, u.token), 409, 'conflict');
      expectError(
        await c.api('PUT', `${base(pid)}/${b.id}`, { method: 'GET', statusCode: 500 }, u.token),
        409,
        'conflict',
      );
      expect(await list(pid)).toEqual([a, b]);
      // updating an endpoint to its own method and path is not a conflict
      expect((await c.api('PATCH', `${base(pid)}/${a.id}`, { method: 'GET', path: '/a/' }, u.token)).status).toBe(200);
    });
  });

  describe('updates', () => {
    it.each(['PUT', 'PATCH'])('%s is partial: omitted fields keep their value', async (verb) => {
      const pid = await newProject();
      const e = (
        await create(pid, {
          method: 'POST',
          path: '/p',
          statusCode: 201,
          responseBody: 'hello',
          contentType: 'text/plain',
        })
      ).json;
      await sleep(5);
      const r = await c.api(verb, `${base(pid)}/${e.id}`, { statusCode: 418 }, u.token);
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({
        id: e.id,
        projectId: pid,
        method: 'POST',
        path: '/p',
        statusCode: 418,
        responseBody: 'hello',
        contentType: 'text/plain',
        createdAt: e.createdAt,
      });
      expect(Date.parse(r.json.updatedAt)).toBeGreaterThan(Date.parse(e.updatedAt));
      const r2 = await c.api(verb, `${base(pid)}/${e.id}`, { method: 'put', path: '/q/:id' }, u.token);
      expect(r2.json).toMatchObject({ method: 'PUT', path: '/q/:id', statusCode: 418, responseBody: 'hello' });
      const r3 = await c.api(verb, `${base(pid)}/${e.id}`, { responseBody: '', contentType: 'text/html' }, u.token);
      expect(r3.json).toMatchObject({ method: 'PUT', statusCode: 418, responseBody: '', contentType: 'text/html' });
      const got = await c.api('GET', `${base(pid)}/${e.id}`, undefined, u.token);
      expect(got.json).toEqual({ ...r3.json, rules: [] });
    });

    it('ignores read-only fields, so a record read back can be sent back', async () => {
      const pid = await newProject();
      const e = (await create(pid, { method: 'GET', path: '/rt' })).json;
      const read = (await c.api('GET', `${base(pid)}/${e.id}`, undefined, u.token)).json;
      const r = await c.api(
        'PUT',
        `${base(pid)}/${e.id}`,
        { ...read, id: 'x', projectId: 'y', statusCode: 204 },
        u.token,
      );
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ id: e.id, projectId: pid, statusCode: 204, createdAt: e.createdAt });
    });

    it('validates like create and changes nothing on a 400', async () => {
      const pid = await newProject();
      const e = (await create(pid, { method: 'GET', path: '/v', statusCode: 200 })).json;
      const url = `${base(pid)}/${e.id}`;
      expectValidation(await c.api('PATCH', url, { statusCode: 600 }, u.token), '/statusCode');
      expectValidation(await c.api('PATCH', url, { method: 'BREW' }, u.token), '/method');
      expectValidation(await c.api('PATCH', url, { path: 'nope' }, u.token), '/path');
      expectValidation(await c.api('PATCH', url, { contentType: '' }, u.token), '/contentType');
      expectValidation(await c.api('PUT', url, { statusCode: 201, extra: true }, u.token), '/extra');
      expectError(await c.api('PATCH', url, '{"statusCode":', u.token), 400, 'invalid_json');
      expect((await list(pid))[0]).toEqual(e);
    });
  });

  describe('the single-record read', () => {
    it('adds rules in evaluation order: by priority, then creation', async () => {
      await c.api('PATCH', `/api/admin/users/${u.id}`, { plan: 'pro' }, c.adminToken);
      const pid = await newProject();
      const e = (await create(pid, { method: 'GET', path: '/ordered' })).json;
      const r1 = await c.rule(u.token, pid, e.id, { name: 'late', priority: 5 });
      const r2 = await c.rule(u.token, pid, e.id, { name: 'first', priority: 1 });
      const r3 = await c.rule(u.token, pid, e.id, { name: 'later', priority: 5 });
      const r4 = await c.rule(u.token, pid, e.id, { name: 'default' });
      const got = await c.api('GET', `${base(pid)}/${e.id}`, undefined, u.token);
      expect(got.status).toBe(200);
      expect(got.json.rules.map((r: { id: string }) => r.id)).toEqual([r4.id, r2.id, r1.id, r3.id]);
      expect(got.json.rules[0]).toMatchObject({ endpointId: e.id, name: 'default', state: { step: 0, served: 0 } });
    });
  });

  describe('delete', () => {
    it('answers 204 with no body, then 404; its rules, counters and storage go with it', async () => {
      const p = await populate(c);
      const url = `${base(p.pid)}/${p.eid}`;
      const before = await rowsOf(s.running.store.db, p.pid, [p.eid], [p.rid]);
      expect(before).toMatchObject({ endpoints: 1, rules: 1, rule_hits: 1, storage: 1 });
      const r = await c.api('DELETE', url, undefined, p.token);
      expect(r.status).toBe(204);
      expect(r.text).toBe('');
      expectError(await c.api('GET', url, undefined, p.token), 404, 'not_found');
      expectError(await c.api('DELETE', url, undefined, p.token), 404, 'not_found');
      expectError(await c.api('GET', `${url}/storage`, undefined, p.token), 404, 'not_found');
      expectError(await c.api('GET', `${url}/rules`, undefined, p.token), 404, 'not_found');
      expectError(await c.api('GET', `${url}/rules/${p.rid}`, undefined, p.token), 404, 'not_found');
      const after = await rowsOf(s.running.store.db, p.pid, [p.eid], [p.rid]);
      expect(after).toMatchObject({ projects: 1, endpoints: 0, rules: 0, rule_hits: 0, storage: 0 });
      expect((await c.api('GET', `/api/projects/${p.pid}`, undefined, p.token)).status).toBe(200);
      expectError(await c.mock(p.pid, 'GET', '/items/7'), 404, 'mock_not_found');
      // the same method and path can be created again, with a fresh sequence and empty storage
      const again = await c.endpoint(p.token, p.pid, { method: 'GET', path: '/items/:id' });
      expect((await c.api('GET', `${base(p.pid)}/${again.id}/storage`, undefined, p.token)).json).toEqual({});
    });
  });

  describe('storage', () => {
    it('GET answers {name: value} written by store_variable; DELETE empties it (204)', async () => {
      const pid = await newProject();
      const e = (await create(pid, { method: 'POST', path: '/s/:id' })).json;
      const url = `${base(pid)}/${e.id}/storage`;
      expect(await c.api('GET', url, undefined, u.token)).toMatchObject({ status: 200, json: {} });
      await c.rule(u.token, pid, e.id, {
        name: 'store',
        actions: [
          { type: 'store_variable', name: 'lastId', value: '{{request.params.id}}' },
          { type: 'store_variable', name: 'lastBody', value: '{{request.body.name}}' },
        ],
      });
      await c.mock(pid, 'POST', '/s/1', { body: '{"name":"ann"}', headers: { 'content-type': 'application/json' } });
      await c.mock(pid, 'POST', '/s/2', { body: '{"name":"bob"}', headers: { 'content-type': 'application/json' } });
      const got = await c.api('GET', url, undefined, u.token);
      expect(got.status).toBe(200);
      expect(got.json).toEqual({ lastId: '2', lastBody: 'bob' });
      const del = await c.api('DELETE', url, undefined, u.token);
      expect(del.status).toBe(204);
      expect(del.text).toBe('');
      expect((await c.api('GET', url, undefined, u.token)).json).toEqual({});
      // deleting empty storage is fine too
      expect((await c.api('DELETE', url, undefined, u.token)).status).toBe(204);
    });

    it('answers 404 for an unknown endpoint or project', async () => {
      const pid = await newProject();
      expectError(await c.api('GET', `${base(pid)}/nope/storage`, undefined, u.token), 404, 'not_found');
      expectError(await c.api('DELETE', `${base(pid)}/nope/storage`, undefined, u.token), 404, 'not_found');
      expectError(await c.api('GET', `${base('nope')}/nope/storage`, undefined, u.token), 404, 'not_found');
    });
  });

  describe('404 not_found', () => {
    it('for an unknown project, an unknown endpoint, or an endpoint of another of one’s projects', async () => {
      const pid = await newProject();
      const other = await newProject();
      const e = (await create(pid, { method: 'GET', path: '/here' })).json;
      const cases: [string, string, unknown?][] = [
        ['GET', base('nope')],
        ['POST', base('nope'), { method: 'GET', path: '/x' }],
        ['GET', `${base(pid)}/nope`],
        ['PUT', `${base(pid)}/nope`, { statusCode: 201 }],
        ['PATCH', `${base(pid)}/nope`, { statusCode: 201 }],
        ['DELETE', `${base(pid)}/nope`],
        ['GET', `${base(other)}/${e.id}`],
        ['PATCH', `${base(other)}/${e.id}`, { statusCode: 500 }],
        ['DELETE', `${base(other)}/${e.id}`],
        ['GET', `${base(other)}/${e.id}/storage`],
      ];
      for (const [m, p, body] of cases) expectError(await c.api(m, p, body, u.token), 404, 'not_found');
      expect((await list(pid))[0]).toEqual(e);
      expect(await list(other)).toEqual([]);
    });
  });
});
