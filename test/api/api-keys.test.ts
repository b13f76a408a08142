/**
 * API keys for CI (docs/testing.md): shown once, stored as a hash, usable as a bearer token, scoped to
 * reading or writing and optionally to projects, revocable at once, never able to manage keys or
 * the account.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { expectError, expectValidation } from '../helpers/expect.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe.each(DIALECTS)('API keys (%s)', (dialect) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(dialect);
  });
  afterAll(() => s.close());

  it('a write key works as a bearer token; the key is shown once and stored as a hash; revoke stops it at once', async () => {
    const c = s.client;
    const u = await c.user();
    const made = await c.api('POST', '/api/auth/keys', { name: 'ci', scope: 'write' }, u.token);
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({ name: 'ci', scope: 'write', projectIds: null, expiresAt: null });
    const key: string = made.json.key;
    expect(key).toMatch(/^myk_[A-Za-z0-9_-]{43}$/);
    const p = await c.api('POST', '/api/projects', { name: 'via key' }, key);
    expect(p.status).toBe(201);
    expect((await c.api('GET', '/api/auth/me', undefined, key)).json.id).toBe(u.id);
    const listed = await c.api('GET', '/api/auth/keys', undefined, u.token);
    expect(listed.json).toHaveLength(1);
    expect(listed.json[0].key).toBeUndefined();
    expect(JSON.stringify(listed.json)).not.toContain(key);
    const rows = await sql<{ key_hash: string }>`SELECT key_hash FROM api_keys`.execute(s.running.store.db);
    expect(rows.rows.map((r) => r.key_hash)).toContain(createHash('sha256').update(key).digest('hex'));
    expect(JSON.stringify(rows.rows)).not.toContain(key);
    expect((await c.api('DELETE', `/api/auth/keys/${made.json.id}`, undefined, u.token)).status).toBe(204);
    expectError(await c.api('GET', '/api/projects', undefined, key), 401, 'unauthorized');
    expectError(await c.api('DELETE', `/api/auth/keys/${made.json.id}`, undefined, u.token), 404, 'not_found');
  });

  it('a read key reads and verifies but every write is 403 forbidden', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'GET', path: '/r' });
    const key = (await c.api('POST', '/api/auth/keys', { name: 'ro', scope: 'read' }, f.token)).json.key;
    expect((await c.api('GET', `/api/projects/${f.pid}/endpoints`, undefined, key)).status).toBe(200);
    expect((await c.api('POST', `/api/projects/${f.pid}/requests/count`, {}, key)).json).toEqual({ count: 0 });
    expect((await c.api('POST', `/api/projects/${f.pid}/requests/find`, {}, key)).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/api/projects', { name: 'x' }],
      ['PATCH', `/api/projects/${f.pid}`, { name: 'x' }],
      ['DELETE', `/api/projects/${f.pid}/endpoints/${f.eid}`, undefined],
      ['POST', `/api/projects/${f.pid}/endpoints`, { method: 'GET', path: '/w' }],
      ['DELETE', `/api/projects/${f.pid}/requests`, undefined],
    ] as const) {
      expectError(await c.api(method, path, body, key), 403, 'forbidden');
    }
    expect((await c.api('GET', `/api/projects/${f.pid}`, undefined, f.token)).json.name).not.toBe('x');
  });

  it('a key limited to projects sees only those; no key manages keys or the account', async () => {
    const c = s.client;
    const u = await c.user();
    const mine = await c.project(u.token, 'mine');
    const other = await c.project(u.token, 'other');
    const key = (await c.api('POST', '/api/auth/keys', { name: 'one', scope: 'write', projectIds: [mine.id] }, u.token))
      .json.key;
    expect((await c.api('GET', '/api/projects', undefined, key)).json.map((p: { id: string }) => p.id)).toEqual([
      mine.id,
    ]);
    expect((await c.api('GET', `/api/projects/${mine.id}/endpoints`, undefined, key)).status).toBe(200);
    expectError(await c.api('GET', `/api/projects/${other.id}`, undefined, key), 404, 'not_found');
    expectError(await c.api('GET', `/api/projects/${other.id}/endpoints`, undefined, key), 404, 'not_found');
    expectError(await c.api('POST', '/api/projects', { name: 'new' }, key), 403, 'forbidden');
    expectError(await c.api('POST', '/api/auth/keys', { name: 'k', scope: 'write' }, key), 403, 'forbidden');
    expectError(await c.api('GET', '/api/auth/keys', undefined, key), 403, 'forbidden');
    expectError(
      await c.api('PUT', '/api/auth/password', { oldPassword: u.password, newPassword: 'another pass' }, key),
      403,
      'forbidden',
    );
  });

  it('a request-log stream opened with a key ends within a second of its revocation', async () => {
    const c = s.client;
    const f = await c.fixture();
    const made = (await c.api('POST', '/api/auth/keys', { name: 'stream', scope: 'read' }, f.token)).json;
    const ctl = new AbortController();
    const res = await fetch(`${s.running.url}/api/projects/${f.pid}/requests/stream`, {
      headers: { authorization: `Bearer ${made.key}` },
      signal: ctl.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body?.getReader();
    await reader?.read(); // ': connected'
    await c.api('DELETE', `/api/auth/keys/${made.id}`, undefined, f.token);
    const revoked = Date.now();
    let done = false;
    while (!done && Date.now() - revoked < 3000) done = (await reader?.read())?.done ?? true;
    expect(done).toBe(true);
    expect(Date.now() - revoked).toBeLessThan(1500);
    ctl.abort();
  });

  it('refuses an expiry in the past and projects that are not the caller’s; an expired key is 401', async () => {
    const c = s.client;
    const u = await c.user();
    const stranger = await c.user();
    const theirs = await c.project(stranger.token);
    expectValidation(
      await c.api('POST', '/api/auth/keys', { name: 'k', scope: 'read', expiresAt: '2001-01-01T00:00:00Z' }, u.token),
      '/expiresAt',
    );
    expectValidation(
      await c.api('POST', '/api/auth/keys', { name: 'k', scope: 'read', projectIds: [theirs.id] }, u.token),
      '/projectIds/0',
    );
    expectValidation(await c.api('POST', '/api/auth/keys', { name: 'k', scope: 'admin' }, u.token), '/scope');
    const soon = new Date(Date.now() + 1500).toISOString();
    const key = (await c.api('POST', '/api/auth/keys', { name: 'k', scope: 'read', expiresAt: soon }, u.token)).json
      .key;
    expect((await c.api('GET', '/api/projects', undefined, key)).status).toBe(200);
    const deadline = Date.now() + 5000;
    let status = 200;
    while (status === 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await c.api('GET', '/api/projects', undefined, key)).status;
    }
    expect(status).toBe(401);
  });
});
