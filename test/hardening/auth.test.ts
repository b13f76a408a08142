/**
 * Auth hardening (docs/api.md "Authentication", docs/api.md "Request log"): tokens kept only as SHA-256 hashes and passwords as scrypt
 * hashes, one answer for an unknown email and a wrong password, revocation on logout and on a
 * password change, expiry, malformed Authorization headers, the admin token, secrets never in the
 * server log, security headers on the dashboard and the API, and none of them on mock answers.
 * Tenant isolation route by route (BOLA) is test/api/isolation.test.ts.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MOCK_CSP } from '../../src/runtime/respond.js';
import { freshDatabase } from '../helpers/databases.js';
import {
  ADMIN_TOKEN,
  type HttpAnswer,
  request,
  spawnServer,
  startTestServer,
  type TestClient,
  type TestServer,
} from '../helpers/server.js';
import { expectErrorShape } from './support.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

function expectCode(r: HttpAnswer, status: number, code: string): void {
  expect(r.status, r.text.slice(0, 300)).toBe(status);
  expectErrorShape(r);
  expect(r.json.error.code).toBe(code);
}

describe('auth hardening', () => {
  let srv: TestServer;
  let c: TestClient;
  beforeAll(async () => {
    srv = await startTestServer('sqlite');
    c = srv.client;
  });
  afterAll(async () => {
    await srv?.close();
  });

  test('tokens are random (≥128 bits) and stored only as SHA-256; passwords only as scrypt hashes', async () => {
    const u = await c.user();
    const second = await c.api('POST', '/api/auth/login', { email: u.email, password: u.password });
    expect(second.status).toBe(200);
    for (const t of [u.token, second.json.token]) expect(Buffer.from(t, 'base64url').length).toBeGreaterThanOrEqual(16);
    expect(second.json.token).not.toBe(u.token);
    expect(JSON.stringify(second.json)).not.toMatch(/password|hash|scrypt/i);

    const file = srv.db.url.slice('sqlite:'.length);
    const db = new SqliteDatabase(file, { readonly: true });
    try {
      const sessions = db.prepare('SELECT * FROM sessions WHERE user_id = ?').all(u.id) as { token_hash: string }[];
      expect(sessions.map((s) => s.token_hash).sort()).toEqual([sha256(u.token), sha256(second.json.token)].sort());
      const users = JSON.stringify(db.prepare('SELECT * FROM users').all());
      const everything = JSON.stringify([sessions, users]);
      for (const secret of [u.token, second.json.token, u.password]) expect(everything).not.toContain(secret);
      const row = db.prepare('SELECT password_hash FROM users WHERE id = ?').get(u.id) as { password_hash: string };
      expect(row.password_hash).toMatch(/^scrypt\$/);
    } finally {
      db.close();
    }
  });

  test('login: the same answer for an unknown email and for a wrong password', async () => {
    const u = await c.user();
    const unknown = await c.api('POST', '/api/auth/login', { email: `nobody-${u.email}`, password: u.password });
    const wrong = await c.api('POST', '/api/auth/login', { email: u.email, password: `${u.password}x` });
    const wrongCase = await c.api('POST', '/api/auth/login', { email: u.email.toUpperCase(), password: 'nope-nope' });
    for (const r of [unknown, wrong, wrongCase]) expectCode(r, 401, 'invalid_credentials');
    expect(unknown.text).toBe(wrong.text);
    expect(wrongCase.text).toBe(wrong.text);
    // emails are compared case-insensitively for the right password
    expect(
      (await c.api('POST', '/api/auth/login', { email: u.email.toUpperCase(), password: u.password })).status,
    ).toBe(200);
  });

  test('logout revokes the presented token at once, and only that one', async () => {
    const u = await c.user();
    const other = (await c.api('POST', '/api/auth/login', { email: u.email, password: u.password })).json.token;
    expect((await c.api('POST', '/api/auth/logout', undefined, u.token)).status).toBe(204);
    for (const path of ['/api/auth/me', '/api/projects']) {
      expectCode(await c.api('GET', path, undefined, u.token), 401, 'unauthorized');
    }
    expectCode(await c.api('POST', '/api/auth/logout', undefined, u.token), 401, 'unauthorized');
    expect((await c.api('GET', '/api/auth/me', undefined, other)).status).toBe(200);
  });

  test('PUT /api/auth/password: checks the old password, revokes every other session, keeps this one', async () => {
    const u = await c.user();
    const other = (await c.api('POST', '/api/auth/login', { email: u.email, password: u.password })).json.token;
    const wrong = await c.api(
      'PUT',
      '/api/auth/password',
      { oldPassword: 'not-it-at-all', newPassword: 'new-password-1' },
      u.token,
    );
    expectCode(wrong, 401, 'invalid_credentials');
    expect((await c.api('GET', '/api/auth/me', undefined, other)).status).toBe(200);
    expectCode(
      await c.api('PUT', '/api/auth/password', { oldPassword: u.password, newPassword: 'short' }, u.token),
      400,
      'validation_failed',
    );
    expectCode(
      await c.api('PUT', '/api/auth/password', { oldPassword: u.password, newPassword: 'new-password-1' }),
      401,
      'unauthorized',
    );

    const ok = await c.api(
      'PUT',
      '/api/auth/password',
      { oldPassword: u.password, newPassword: 'new-password-1' },
      u.token,
    );
    expect(ok.status, ok.text).toBe(204);
    expectCode(await c.api('GET', '/api/auth/me', undefined, other), 401, 'unauthorized');
    expect((await c.api('GET', '/api/auth/me', undefined, u.token)).status).toBe(200);
    expectCode(
      await c.api('POST', '/api/auth/login', { email: u.email, password: u.password }),
      401,
      'invalid_credentials',
    );
    expect((await c.api('POST', '/api/auth/login', { email: u.email, password: 'new-password-1' })).status).toBe(200);
  });

  test('malformed, unknown and foreign Authorization headers are 401 unauthorized', async () => {
    const u = await c.user();
    const headers = [
      'Bearer',
      'Bearer ',
      `Basic ${Buffer.from(`${u.email}:${u.password}`).toString('base64')}`,
      `Bearer ${u.token} extra`,
      `Bearer ${u.token.slice(0, -1)}`,
      `Bearer ${sha256(u.token)}`,
      `Token ${u.token}`,
      `Bearer ${ADMIN_TOKEN}`,
    ];
    for (const h of headers) {
      const r = await c.api('GET', '/api/projects', undefined, null, { authorization: h });
      expectCode(r, 401, 'unauthorized');
    }
    expectCode(await c.api('GET', '/api/projects'), 401, 'unauthorized');
    // the scheme is case-insensitive
    expect((await c.api('GET', '/api/projects', undefined, null, { authorization: `bearer ${u.token}` })).status).toBe(
      200,
    );
  });

  test('the admin API: only the admin token, compared in full; a session token is not one', async () => {
    const u = await c.user();
    const path = `/api/admin/users/${u.id}`;
    const tries = [
      ADMIN_TOKEN.slice(0, -1),
      `${ADMIN_TOKEN}x`,
      ADMIN_TOKEN.replace(/.$/, (ch) => (ch === 'a' ? 'b' : 'a')),
      ADMIN_TOKEN.toUpperCase(),
      u.token,
    ];
    for (const t of tries) expectCode(await c.api('PATCH', path, { plan: 'pro' }, t), 401, 'unauthorized');
    expectCode(await c.api('PATCH', path, { plan: 'pro' }), 401, 'unauthorized');
    expect((await c.api('GET', '/api/auth/me', undefined, u.token)).json.plan).toBe('free');
    const ok = await c.api('PATCH', path, { plan: 'pro' }, ADMIN_TOKEN);
    expect(ok.status).toBe(200);
    expect(ok.json.plan).toBe('pro');
  });

  test('security headers on the dashboard, the API and its errors', async () => {
    const u = await c.user();
    const answers = [
      await request(`${srv.running.url}/`),
      await request(`${srv.running.url}/projects/deep/link`),
      await c.api('GET', '/api/auth/me', undefined, u.token),
      await c.api('GET', '/api/projects'),
      await c.api('GET', '/api/nothing-here', undefined, u.token),
      await request(`${srv.running.url}/api/openapi.json`),
      await request(`${srv.running.url}/healthz`),
    ];
    expect(answers[0].status, 'the dashboard is built (npm run build)').toBe(200);
    expect(answers[0].headers.get('content-type')).toMatch(/text\/html/);
    for (const r of answers) {
      const csp = r.headers.get('content-security-policy') ?? '';
      const script = /script-src ([^;]*)/.exec(csp)?.[1] ?? /default-src ([^;]*)/.exec(csp)?.[1] ?? '';
      expect(script, csp).not.toBe('');
      expect(script).not.toContain("'unsafe-inline'");
      expect(script).not.toContain("'unsafe-eval'");
      expect(csp).toMatch(/frame-ancestors 'none'/);
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      expect(r.headers.get('set-cookie')).toBeNull();
      expect(r.headers.get('access-control-allow-origin')).toBeNull();
    }
    // the dashboard's HTML has no inline script the CSP would have to allow
    expect(answers[0].text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
  });

  test('mock answers never carry the dashboard’s headers or cookies, and are sandboxed', async () => {
    const f = await c.fixture({
      method: 'POST',
      path: '/x',
      responseBody: '<script>alert(1)</script>',
      contentType: 'text/html',
    });
    await c.rule(f.token, f.pid, f.eid, {
      name: 'step',
      conditions: [{ target: 'header', key: 'x-step', operator: 'exists' }],
      response: { steps: [{ statusCode: 201, body: 'step', headers: { 'x-custom': 'yes' } }] },
    });
    const answers = [
      await c.mock(f.pid, 'POST', '/x'),
      await c.mock(f.pid, 'POST', '/x', { headers: { 'x-step': '1' } }),
      await c.mock(f.pid, 'GET', '/missing'),
      await c.mock('no-such-project', 'GET', '/x'),
      await c.mock(f.pid, 'OPTIONS', '/x', {
        headers: { origin: 'https://a.test', 'access-control-request-method': 'POST' },
      }),
      await c.mock(f.pid, 'POST', '/x', { body: 'z'.repeat(1024 * 1024 + 1) }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 201, 404, 404, 204, 413]);
    expect(answers[1].headers.get('x-custom')).toBe('yes');
    for (const r of answers) {
      // the mock sandbox instead of the dashboard's policy (SECURITY.md)
      expect(r.headers.get('content-security-policy')).toBe(MOCK_CSP);
      for (const h of ['x-frame-options', 'referrer-policy', 'x-content-type-options', 'set-cookie'])
        expect(r.headers.get(h), h).toBeNull();
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
    }
  });

  test('the request log redacts Authorization and Cookie of mock requests', async () => {
    const f = await c.fixture({ method: 'GET', path: '/logged' });
    await c.mock(f.pid, 'GET', '/logged', {
      headers: { authorization: 'Bearer mock-secret-1', cookie: 'sid=mock-secret-2' },
    });
    let entries: { headers: Record<string, string> }[] = [];
    for (let i = 0; i < 50 && entries.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      entries = (await c.api('GET', `/api/projects/${f.pid}/requests`, undefined, f.token)).json;
    }
    expect(entries).toHaveLength(1);
    expect(entries[0].headers.authorization).toBe('[redacted]');
    expect(entries[0].headers.cookie).toBe('[redacted]');
    expect(JSON.stringify(entries)).not.toMatch(/mock-secret/);
  });
});

describe('sessions expire', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer('sqlite', { sessionTtlHours: 1 / 3600 }); // one second
  });
  afterAll(async () => {
    await srv?.close();
  });
  test('a token past SESSION_TTL_HOURS is 401', async () => {
    const u = await srv.client.user();
    const me = await srv.client.api('GET', '/api/auth/me', undefined, u.token);
    expect(me.status).toBe(200);
    // polled: the token stops working once its second has passed (not before the first answer above)
    let last = me;
    for (let i = 0; i < 100 && last.status === 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      last = await srv.client.api('GET', '/api/auth/me', undefined, u.token);
    }
    expectCode(last, 401, 'unauthorized');
  });
});

describe('without MOCKYARD_ADMIN_TOKEN the admin API does not exist', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer('sqlite', { adminToken: null });
  });
  afterAll(async () => {
    await srv?.close();
  });
  test('404 for any token', async () => {
    const u = await srv.client.user();
    for (const t of [ADMIN_TOKEN, u.token, null]) {
      expectCode(await srv.client.api('PATCH', `/api/admin/users/${u.id}`, { plan: 'pro' }, t), 404, 'not_found');
    }
  });
});

describe('secrets never reach the server log (child process, LOG_LEVEL=debug)', () => {
  test('Authorization, cookies, passwords and tokens are absent from everything the process wrote', async () => {
    const db = await freshDatabase('sqlite');
    const child = await spawnServer(db.url, { LOG_LEVEL: 'debug' });
    let token = 'unset';
    try {
      const c = child.client;
      const u = await c.user();
      token = u.token;
      const p = await c.project(u.token, 'logged');
      await c.endpoint(u.token, p.id, { method: 'GET', path: '/x' });
      const fake = 'fake-token-SECRET-0123456789abcdef';
      await c.api('GET', '/api/projects', undefined, u.token);
      await c.api('GET', '/api/projects', undefined, fake);
      await c.api('POST', '/api/projects', '{broken', u.token);
      await c.api('PATCH', `/api/admin/users/${u.id}`, { plan: 'pro' }, `${ADMIN_TOKEN}-wrong`);
      await c.api('PATCH', `/api/admin/users/${u.id}`, { plan: 'pro' }, ADMIN_TOKEN);
      await c.api('POST', '/api/auth/login', { email: u.email, password: 'wrong-password-SECRET' });
      await c.api(
        'PUT',
        '/api/auth/password',
        { oldPassword: u.password, newPassword: 'new-password-SECRET' },
        u.token,
      );
      await c.mock(p.id, 'GET', '/x', { headers: { authorization: `Bearer ${fake}`, cookie: 'sid=cookie-SECRET' } });
      await c.mock(p.id, 'GET', '/missing', { headers: { authorization: `Bearer ${fake}` } });
      await c.api('POST', '/api/auth/logout', undefined, u.token);
    } finally {
      expect(await child.stop('SIGTERM')).toBe(0);
      await db.drop();
    }
    const log = fs.readFileSync(child.logFile, 'utf8');
    // the log is not empty: debug lines were written, so the absence below means something
    expect(log).toMatch(/"level":20|listening/);
    expect(log).not.toMatch(/SECRET/);
    expect(log).not.toContain(ADMIN_TOKEN);
    expect(log).not.toContain(token);
    expect(log).not.toMatch(/authorization"\s*:\s*"Bearer/i);
    expect(log).not.toMatch(/\bpw-[0-9a-f]{12}\b/); // the generated user password
  });
});
