/**
 * Security III (issue 34), what one user can make the service keep: collection caps, copy-on-write
 * session copies, the login limiter (also across processes) and the caps imports obey — each over HTTP
 * against the real server (SECURITY.md names the test of each attack).
 */
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Running, startServer } from '../../src/server.js';
import { DIALECTS } from '../helpers/databases.js';
import { expectError } from '../helpers/expect.js';
import { startTestServer, TestClient, type TestServer, testConfig } from '../helpers/server.js';

describe('Security III: collection caps', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
  });
  afterAll(() => s.close());

  test('attack 10: items over 64 KiB are 413 from anonymous mock callers; a session holds at most 10,000 items', async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const seed = Array.from({ length: 9_999 }, (_, i) => ({ id: i + 1 }));
    expect((await c.api('POST', `/api/projects/${p.id}/collections`, { name: 'things', seed }, u.token)).status).toBe(
      201,
    );
    expect(
      (await c.api('POST', `/api/projects/${p.id}/resources`, { collection: 'things', path: '/things' }, u.token))
        .status,
    ).toBe(201);
    const huge = JSON.stringify({ blob: 'x'.repeat(900 * 1024) });
    for (let i = 0; i < 3; i++) {
      const r = await c.mock(p.id, 'POST', '/things', { body: huge, headers: { 'content-type': 'application/json' } });
      expectError(r, 413, 'payload_too_large');
    }
    const ok = await c.mock(p.id, 'POST', '/things', {
      body: '{"name":"last"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(ok.status).toBe(201);
    const full = await c.mock(p.id, 'POST', '/things', {
      body: '{"name":"one more"}',
      headers: { 'content-type': 'application/json' },
    });
    expectError(full, 413, 'payload_too_large');
    // a replace that would grow an item past the cap is refused too, and the item is unchanged
    const grown = await c.mock(p.id, 'PUT', '/things/1', {
      body: huge,
      headers: { 'content-type': 'application/json' },
    });
    expectError(grown, 413, 'payload_too_large');
    expect((await c.mock(p.id, 'GET', '/things/1')).json).toEqual({ id: 1 });
    // seeds: at most 10,000 items and 64 KiB an item
    const tooMany = Array.from({ length: 10_001 }, (_, i) => ({ id: i }));
    expectError(
      await c.api('POST', `/api/projects/${p.id}/collections`, { name: 'many', seed: tooMany }, u.token),
      400,
      'validation_failed',
    );
    const bigItem = [{ id: 1, blob: 'x'.repeat(70 * 1024) }];
    const r = await c.api('POST', `/api/projects/${p.id}/collections`, { name: 'big', seed: bigItem }, u.token);
    expectError(r, 400, 'validation_failed');
    expect(r.json.error.details[0].path).toBe('/seed/0');
  });
});

describe('Security III: copy-on-write session copies', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
  });
  afterAll(() => s.close());

  test('attack 10b: 40 anonymous sessions of a 0.9 MB seed store only what each changed', async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const seed = Array.from({ length: 900 }, (_, i) => ({ id: i + 1, text: 'z'.repeat(1000) }));
    expect((await c.api('POST', `/api/projects/${p.id}/collections`, { name: 'big', seed }, u.token)).status).toBe(201);
    await c.api('POST', `/api/projects/${p.id}/resources`, { collection: 'big', path: '/big' }, u.token);
    const json = { 'content-type': 'application/json' };
    for (let i = 0; i < 40; i++) {
      const session = { 'x-mockyard-session': `anon-${i}` };
      const list = await c.mock(p.id, 'GET', '/big', { headers: session });
      expect(list.json).toHaveLength(900);
      if (i % 10 === 0) {
        await c.mock(p.id, 'DELETE', '/big/1', { headers: session });
        await c.mock(p.id, 'PATCH', '/big/2', { headers: { ...session, ...json }, body: '{"text":"mine"}' });
        await c.mock(p.id, 'POST', '/big', { headers: { ...session, ...json }, body: '{"id":1,"text":"back"}' });
      }
    }
    // SQLite keys a copy's items by its row (migration 0016)
    const rows = await sql<{ n: number; bytes: number }>`SELECT COUNT(*) AS n, COALESCE(SUM(LENGTH(i.data)), 0) AS bytes
      FROM collection_items i JOIN collection_sessions c ON c.id = i.copy WHERE c.project_id = ${p.id}`.execute(
      s.running.store.db,
    );
    // 4 sessions each hold 2 rows (item 2 changed in place; item 1 deleted, then created again at the
    // end, its tombstone replaced); the other 36 stored nothing
    expect(Number(rows.rows[0].n)).toBe(8);
    expect(Number(rows.rows[0].bytes)).toBeLessThan(10_000);
    const changed = await c.mock(p.id, 'GET', '/big', { headers: { 'x-mockyard-session': 'anon-0' } });
    expect(changed.json.map((x: { id: number }) => x.id).slice(0, 2)).toEqual([2, 3]);
    expect(changed.json[0].text).toBe('mine');
    expect(changed.json.at(-1)).toEqual({ id: 1, text: 'back' });
    const untouched = await c.mock(p.id, 'GET', '/big', { headers: { 'x-mockyard-session': 'anon-1' } });
    expect(untouched.json[0]).toEqual(seed[0]);
  });
});

describe('Security III: the login limiter', () => {
  let s: TestServer;
  beforeAll(async () => {
    // behind a proxy: X-Forwarded-For names the client address, so one test can be two clients
    s = await startTestServer('sqlite', { authRatePerMinute: 6, trustProxy: true });
  });
  afterAll(() => s.close());

  test('attack 11b: an address over its limit no longer counts attempts against the emails it names', async () => {
    const c = s.client;
    const victim = await c.user();
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    const login = (email: string, password: string, ip: string) =>
      c.api('POST', '/api/auth/login', { email, password }, null, from(ip));
    for (let i = 0; i < 6; i++) await login(`x${i}@example.test`, 'wrong-password', '198.51.100.7');
    for (let i = 0; i < 20; i++) expect((await login(victim.email, 'wrong-password', '198.51.100.7')).status).toBe(429);
    // the victim, from their own address, is not locked out by the attacker's blocked attempts
    expect((await login(victim.email, victim.password, '203.0.113.9')).status).toBe(200);
  });
});

describe('Security III: imports obey the API caps', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
  });
  afterAll(() => s.close());

  test('attack 14: an export with 1,501 stored names or a 200 KB value is refused, naming each; one within the caps imports', async () => {
    const c = s.client;
    const u = await c.user();
    const doc = (storage: Record<string, string>, projectStorage: Record<string, string>) => ({
      mockyard: 1,
      project: { name: 'imported' },
      endpoints: [{ method: 'GET', path: '/s', responseBody: '{{endpoint.a}}' }],
      storage: { 'GET /s': storage },
      projectStorage,
    });
    const many = Object.fromEntries(Array.from({ length: 1501 }, (_, i) => [`n${i}`, 'v']));
    const r1 = await c.api('POST', '/api/projects/import', doc(many, {}), u.token);
    expectError(r1, 400, 'validation_failed');
    expect(r1.json.error.details[0].message).toMatch(/1000 stored names/);
    const r2 = await c.api('POST', '/api/projects/import', doc({ a: 'x'.repeat(200 * 1024) }, {}), u.token);
    expectError(r2, 400, 'validation_failed');
    expect(r2.json.error.details[0].path).toBe('/storage/GET ~1s/a');
    const r3 = await c.api('POST', '/api/projects/import', doc({}, { big: 'y'.repeat(70 * 1024) }), u.token);
    expectError(r3, 400, 'validation_failed');
    expect(r3.json.error.details[0].path).toBe('/projectStorage/big');
    const ok = await c.api('POST', '/api/projects/import', doc({ a: 'stored' }, {}), u.token);
    expect(ok.status).toBe(201);
    expect((await c.mock(ok.json.id, 'GET', '/s')).text).toBe('stored');
  });
});

describe.skipIf(!DIALECTS.includes('postgres'))('Security III: login counts on several processes', () => {
  let a: TestServer;
  let b: Running;
  beforeAll(async () => {
    a = await startTestServer('postgres', { authRatePerMinute: 6 });
    b = await startServer(testConfig(a.db.url, { authRatePerMinute: 6 }), pino({ level: 'silent' }));
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  test('attack 11c: two processes of one PostgreSQL service count one address together', async () => {
    const other = new TestClient(b.url);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const c = i % 2 === 0 ? a.client : other;
      statuses.push(
        (await c.api('POST', '/api/auth/login', { email: `n${i}@example.test`, password: 'wrong-password' })).status,
      );
    }
    // 6 attempts a minute from this address in all, whichever process takes them
    expect(statuses.filter((s) => s === 401)).toHaveLength(6);
    expect(statuses.slice(6)).toEqual([429, 429, 429, 429]);
  });
});
