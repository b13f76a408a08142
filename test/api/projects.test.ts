/**
 * docs/api.md "Conventions" and "Projects" over HTTP on every database: project CRUD, validation, read-only and unknown
 * fields, owner scoping, and the cascade of a project delete.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { expectError, expectValidation, ISO } from '../helpers/expect.js';
import { populate, rowsOf } from '../helpers/populate.js';
import { sleep, startTestServer, type TestClient, type TestServer } from '../helpers/server.js';

describe.each(DIALECTS)('projects on %s', (dialect) => {
  let s: TestServer;
  let c: TestClient;
  /** a user shared by the tests that do not look at the whole project list */
  let u: { token: string; id: string };
  beforeAll(async () => {
    s = await startTestServer(dialect);
    c = s.client;
    u = await c.user();
  });
  const count = async (token: string) => (await c.api('GET', '/api/projects', undefined, token)).json.length;
  afterAll(async () => {
    await s?.close();
  });

  const create = (token: string, body: unknown) => c.api('POST', '/api/projects', body, token);

  it('creates a project: 201 with id, name, createdAt, updatedAt', async () => {
    const u = await c.user();
    const r = await create(u.token, { name: 'Payments' });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ name: 'Payments' });
    expect(typeof r.json.id).toBe('string');
    expect(r.json.id.length).toBeGreaterThan(0);
    expect(r.json.createdAt).toMatch(ISO);
    expect(r.json.updatedAt).toMatch(ISO);
    const got = await c.api('GET', `/api/projects/${r.json.id}`, undefined, u.token);
    expect(got.status).toBe(200);
    expect(got.json).toEqual(r.json);
  });

  it('lists only the caller’s projects, oldest first', async () => {
    const a = await c.user();
    const b = await c.user();
    expect((await c.api('GET', '/api/projects', undefined, a.token)).json).toEqual([]);
    const ids: string[] = [];
    for (const name of ['one', 'two', 'three']) ids.push((await create(a.token, { name })).json.id);
    await create(b.token, { name: 'theirs' });
    const list = await c.api('GET', '/api/projects', undefined, a.token);
    expect(list.status).toBe(200);
    expect(list.json.map((p: { id: string }) => p.id)).toEqual(ids);
    expect(list.json.map((p: { name: string }) => p.name)).toEqual(['one', 'two', 'three']);
    const theirs = await c.api('GET', '/api/projects', undefined, b.token);
    expect(theirs.json.map((p: { name: string }) => p.name)).toEqual(['theirs']);
  });

  it('trims the name and accepts 1 and 100 characters', async () => {
    expect((await create(u.token, { name: '  padded  ' })).json.name).toBe('padded');
    expect((await create(u.token, { name: 'x' })).status).toBe(201);
    const hundred = 'n'.repeat(100);
    const r = await create(u.token, { name: `   ${hundred}   ` });
    expect(r.status).toBe(201);
    expect(r.json.name).toBe(hundred);
    expect((await create(u.token, { name: 'ünïcødé 名前 🚀' })).json.name).toBe('ünïcødé 名前 🚀');
  });

  it.each([
    ['an empty name', { name: '' }],
    ['a blank name', { name: '   \t ' }],
    ['101 characters', { name: 'n'.repeat(101) }],
    ['no name', {}],
    ['a numeric name', { name: 42 }],
    ['a null name', { name: null }],
    ['an unknown field', { name: 'ok', color: 'blue' }],
  ])('answers 400 validation_failed for %s and creates nothing', async (_n, body) => {
    const before = await count(u.token);
    const r = await create(u.token, body);
    expectValidation(r);
    const paths = r.json.error.details.map((d: { path: string }) => d.path);
    expect(paths.some((p: string) => p === '/name' || p === '/color')).toBe(true);
    expect(await count(u.token)).toBe(before);
  });

  it('answers 400 for a body that is an array, a string or missing', async () => {
    const before = await count(u.token);
    expectError(await create(u.token, [{ name: 'x' }]), 400, 'validation_failed');
    expectError(await create(u.token, '"x"'), 400, 'validation_failed');
    expectError(await c.api('POST', '/api/projects', undefined, u.token), 400, 'validation_failed');
    expect(await count(u.token)).toBe(before);
  });

  it('ignores read-only fields on create', async () => {
    const r = await create(u.token, {
      name: 'ro',
      id: 'chosen-id',
      createdAt: '2000-01-01T00:00:00.000Z',
      updatedAt: '2000-01-01T00:00:00.000Z',
    });
    expect(r.status).toBe(201);
    expect(r.json.id).not.toBe('chosen-id');
    expect(r.json.createdAt).not.toBe('2000-01-01T00:00:00.000Z');
    expect(r.json.updatedAt).not.toBe('2000-01-01T00:00:00.000Z');
    expectError(await c.api('GET', '/api/projects/chosen-id', undefined, u.token), 404, 'not_found');
  });

  it.each(['PUT', 'PATCH'])('%s renames, bumps updatedAt, keeps id and createdAt', async (method) => {
    const p = (await create(u.token, { name: 'before' })).json;
    await sleep(5);
    const r = await c.api(method, `/api/projects/${p.id}`, { name: '  after  ' }, u.token);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id: p.id, name: 'after', createdAt: p.createdAt });
    expect(Date.parse(r.json.updatedAt)).toBeGreaterThan(Date.parse(p.updatedAt));
    expect((await c.api('GET', `/api/projects/${p.id}`, undefined, u.token)).json).toEqual(r.json);
  });

  it('an update is partial and ignores read-only fields; unknown fields and bad names are 400', async () => {
    const p = (await create(u.token, { name: 'keep' })).json;
    const empty = await c.api('PATCH', `/api/projects/${p.id}`, {}, u.token);
    expect(empty.status).toBe(200);
    expect(empty.json.name).toBe('keep');
    const ro = await c.api(
      'PUT',
      `/api/projects/${p.id}`,
      { id: 'other', createdAt: '2000-01-01T00:00:00.000Z', updatedAt: '2000-01-01T00:00:00.000Z' },
      u.token,
    );
    expect(ro.status).toBe(200);
    expect(ro.json).toMatchObject({ id: p.id, name: 'keep', createdAt: p.createdAt });
    // a record read back can be sent back as is
    const back = await c.api('PUT', `/api/projects/${p.id}`, { ...ro.json, name: 'round trip' }, u.token);
    expect(back.status).toBe(200);
    expect(back.json.name).toBe('round trip');
    expectValidation(await c.api('PATCH', `/api/projects/${p.id}`, { owner: 'x' }, u.token), '/owner');
    expectValidation(await c.api('PATCH', `/api/projects/${p.id}`, { name: ' ' }, u.token), '/name');
    expectValidation(await c.api('PUT', `/api/projects/${p.id}`, { name: 'n'.repeat(101) }, u.token), '/name');
    expect((await c.api('GET', `/api/projects/${p.id}`, undefined, u.token)).json.name).toBe('round trip');
  });

  it('answers 404 not_found for an unknown id on every verb', async () => {
    expectError(await c.api('GET', '/api/projects/nope', undefined, u.token), 404, 'not_found');
    expectError(await c.api('PUT', '/api/projects/nope', { name: 'x' }, u.token), 404, 'not_found');
    expectError(await c.api('PATCH', '/api/projects/nope', { name: 'x' }, u.token), 404, 'not_found');
    expectError(await c.api('DELETE', '/api/projects/nope', undefined, u.token), 404, 'not_found');
  });

  it('delete answers 204 with no body; then the project is gone (404) and its mocks too', async () => {
    const u = await c.user();
    const p = await c.project(u.token, 'doomed');
    await c.endpoint(u.token, p.id, { method: 'GET', path: '/x' });
    expect((await c.mock(p.id, 'GET', '/x')).status).toBe(200);
    const r = await c.api('DELETE', `/api/projects/${p.id}`, undefined, u.token);
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expectError(await c.api('GET', `/api/projects/${p.id}`, undefined, u.token), 404, 'not_found');
    expectError(await c.api('DELETE', `/api/projects/${p.id}`, undefined, u.token), 404, 'not_found');
    expectError(await c.api('GET', `/api/projects/${p.id}/endpoints`, undefined, u.token), 404, 'not_found');
    expectError(await c.api('GET', `/api/projects/${p.id}/requests`, undefined, u.token), 404, 'not_found');
    expectError(await c.mock(p.id, 'GET', '/x'), 404, 'mock_not_found');
    expect((await c.api('GET', '/api/projects', undefined, u.token)).json).toEqual([]);
  });

  it('delete takes the endpoints, rules, hit counters, storage and request log with it', async () => {
    const a = await populate(c);
    const other = await populate(c);
    const storage = await c.api('GET', `/api/projects/${a.pid}/endpoints/${a.eid}/storage`, undefined, a.token);
    expect(storage.json).toEqual({ last: '7' });
    const before = await rowsOf(s.running.store.db, a.pid, [a.eid], [a.rid]);
    expect(before).toEqual({ projects: 1, endpoints: 1, rules: 1, rule_hits: 1, storage: 1, request_log: 1 });
    expect((await c.api('DELETE', `/api/projects/${a.pid}`, undefined, a.token)).status).toBe(204);
    const after = await rowsOf(s.running.store.db, a.pid, [a.eid], [a.rid]);
    expect(after).toEqual({ projects: 0, endpoints: 0, rules: 0, rule_hits: 0, storage: 0, request_log: 0 });
    expectError(
      await c.api('GET', `/api/projects/${a.pid}/endpoints/${a.eid}/rules/${a.rid}`, undefined, a.token),
      404,
      'not_found',
    );
    // another project is untouched
    const kept = await rowsOf(s.running.store.db, other.pid, [other.eid], [other.rid]);
    expect(kept).toEqual({ projects: 1, endpoints: 1, rules: 1, rule_hits: 1, storage: 1, request_log: 1 });
  });
});
