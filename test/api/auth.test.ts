/**
 * docs/api.md (accounts, tokens, the admin API) over HTTP against the real server, on every database: accounts,
 * sessions, the 401 variants, rate limiting, the admin API, health, OpenAPI, and the body errors
 * every management route shares: body-errors.test.ts. Servers started with other settings:
 * auth-settings.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/domain/passwords.js';
import { DIALECTS } from '../helpers/databases.js';
import { expectError, expectValidation, ISO } from '../helpers/expect.js';
import { ADMIN_TOKEN, startTestServer, type TestClient, type TestServer } from '../helpers/server.js';

const email = () => `a-${randomBytes(5).toString('hex')}@Example.test`;
describe.each(DIALECTS)('auth and service basics on %s', (dialect) => {
  let s: TestServer;
  let c: TestClient;
  beforeAll(async () => {
    s = await startTestServer(dialect);
    c = s.client;
  });
  afterAll(async () => {
    await s?.close();
  });

  describe('register', () => {
    it('answers 201 {token, user} with a free plan and no password or hash', async () => {
      const e = email();
      const password = 'correct horse';
      const r = await c.api('POST', '/api/auth/register', { email: e, password });
      expect(r.status).toBe(201);
      expect(Object.keys(r.json).sort()).toEqual(['token', 'user']);
      expect(typeof r.json.token).toBe('string');
      // ≥ 128 bits of randomness: at least 22 base64 characters
      expect(r.json.token.length).toBeGreaterThanOrEqual(22);
      expect(Object.keys(r.json.user).sort()).toEqual(['createdAt', 'email', 'id', 'plan']);
      expect(r.json.user.email.toLowerCase()).toBe(e.toLowerCase());
      expect(r.json.user.plan).toBe('free');
      expect(r.json.user.createdAt).toMatch(ISO);
      expect(r.text).not.toContain(password);
      expect(r.text.toLowerCase()).not.toMatch(/hash|scrypt/);
      const me = await c.api('GET', '/api/auth/me', undefined, r.json.token);
      expect(me.status).toBe(200);
      expect(me.json).toEqual(r.json.user);
    });

    it('stores only a hash of the token, valid for 720 hours by default', async () => {
      const u = await c.user();
      const rows = await s.running.store.db.selectFrom('sessions').selectAll().where('user_id', '=', u.id).execute();
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toContain(u.token);
      expect(rows[0].token_hash).toBe(hashToken(u.token));
      const ttlHours = (Date.parse(rows[0].expires_at) - Date.parse(rows[0].created_at)) / 3_600_000;
      expect(ttlHours).toBeGreaterThan(719.9);
      expect(ttlHours).toBeLessThan(720.1);
    });

    it('answers 409 conflict for an email already registered, in any letter case', async () => {
      const u = await c.user();
      for (const variant of [u.email, u.email.toUpperCase(), ` ${u.email} `]) {
        const r = await c.api('POST', '/api/auth/register', { email: variant, password: 'another-password' });
        expectError(r, 409, 'conflict');
      }
      // the original password still works: the conflict changed nothing
      const login = await c.api('POST', '/api/auth/login', { email: u.email, password: u.password });
      expect(login.status).toBe(200);
    });

    it.each([
      ['a short password', { email: 'x@example.test', password: 'short' }, '/password'],
      ['no password', { email: 'x@example.test' }, '/password'],
      ['no email', { password: 'long enough' }, '/email'],
      ['a non-string email', { email: 42, password: 'long enough' }, '/email'],
      ['an email without @', { email: 'not-an-email', password: 'long enough' }, '/email'],
      ['an unknown field', { email: 'y@example.test', password: 'long enough', admin: true }, '/admin'],
    ])('answers 400 validation_failed for %s', async (_name, body, path) => {
      expectValidation(await c.api('POST', '/api/auth/register', body), path);
    });

    it('answers 400 for a body that is not an object', async () => {
      expectError(await c.api('POST', '/api/auth/register', '[1,2]'), 400, 'validation_failed');
      expectError(await c.api('POST', '/api/auth/register', '"x"'), 400, 'validation_failed');
    });
  });

  describe('login, logout, me', () => {
    it('logs in with the email in any case and issues a new, independent token', async () => {
      const u = await c.user();
      const r = await c.api('POST', '/api/auth/login', { email: u.email.toUpperCase(), password: u.password });
      expect(r.status).toBe(200);
      expect(Object.keys(r.json).sort()).toEqual(['token', 'user']);
      expect(r.json.user.id).toBe(u.id);
      expect(r.json.token).not.toBe(u.token);
      expect(r.text).not.toContain(u.password);
      expect((await c.api('GET', '/api/auth/me', undefined, r.json.token)).json.id).toBe(u.id);
      expect((await c.api('GET', '/api/auth/me', undefined, u.token)).json.id).toBe(u.id);
    });

    it('answers 401 invalid_credentials for a wrong password and for an unknown email alike', async () => {
      const u = await c.user();
      const wrong = await c.api('POST', '/api/auth/login', { email: u.email, password: `${u.password}x` });
      expectError(wrong, 401, 'invalid_credentials');
      const unknown = await c.api('POST', '/api/auth/login', { email: email(), password: u.password });
      expectError(unknown, 401, 'invalid_credentials');
      expect(unknown.json.error.message).toBe(wrong.json.error.message);
    });

    it('answers 400 for a login body without a password', async () => {
      expectValidation(await c.api('POST', '/api/auth/login', { email: 'x@example.test' }), '/password');
    });

    it('logout answers 204 with no body and the token stops working at once; others keep working', async () => {
      const u = await c.user();
      const second = (await c.api('POST', '/api/auth/login', { email: u.email, password: u.password })).json.token;
      const r = await c.api('POST', '/api/auth/logout', undefined, u.token);
      expect(r.status).toBe(204);
      expect(r.text).toBe('');
      expectError(await c.api('GET', '/api/auth/me', undefined, u.token), 401, 'unauthorized');
      expectError(await c.api('GET', '/api/projects', undefined, u.token), 401, 'unauthorized');
      expectError(await c.api('POST', '/api/auth/logout', undefined, u.token), 401, 'unauthorized');
      expect((await c.api('GET', '/api/auth/me', undefined, second)).status).toBe(200);
    });

    it('logout with a JSON content type and an empty body is fine', async () => {
      const u = await c.user();
      const r = await c.api('POST', '/api/auth/logout', undefined, u.token, { 'content-type': 'application/json' });
      expect(r.status).toBe(204);
    });
  });

  describe('401 unauthorized', () => {
    const routes: [string, string][] = [
      ['GET', '/api/auth/me'],
      ['POST', '/api/auth/logout'],
      ['GET', '/api/projects'],
      ['POST', '/api/projects'],
      ['GET', '/api/projects/whatever'],
      ['DELETE', '/api/projects/whatever'],
      ['GET', '/api/projects/whatever/endpoints'],
      ['GET', '/api/projects/whatever/requests'],
    ];

    it.each(routes)('%s %s without a token', async (method, p) => {
      const r = await c.api(method, p, method === 'POST' ? { name: 'x' } : undefined);
      expectError(r, 401, 'unauthorized');
    });

    it('for a malformed, unknown, revoked or expired token', async () => {
      const u = await c.user();
      const bad: Record<string, string>[] = [
        { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
        { authorization: 'Bearer' },
        { authorization: 'Bearer ' },
        { authorization: u.token },
        { authorization: `Bearer ${u.token} extra` },
        { authorization: `Bearer ${randomBytes(32).toString('base64url')}` },
        { authorization: `Bearer ${u.token}x` },
      ];
      for (const h of bad) {
        expectError(await c.api('GET', '/api/auth/me', undefined, null, h), 401, 'unauthorized');
      }
      // expired: a session whose expiry has passed
      const expired = `expired-${randomBytes(16).toString('hex')}`;
      await s.running.store.loginTokens.create(hashToken(expired), u.id, new Date(Date.now() - 1000));
      expectError(await c.api('GET', '/api/auth/me', undefined, expired), 401, 'unauthorized');
      expectError(await c.api('GET', '/api/projects', undefined, expired), 401, 'unauthorized');
      // the real token still works
      expect((await c.api('GET', '/api/auth/me', undefined, u.token)).status).toBe(200);
    });

    it('a protected handler does not run without a token', async () => {
      const before = await s.running.store.db.selectFrom('projects').select('id').execute();
      expectError(await c.api('POST', '/api/projects', { name: 'sneaky' }), 401, 'unauthorized');
      const after = await s.running.store.db.selectFrom('projects').select('id').execute();
      expect(after.length).toBe(before.length);
    });
  });

  describe('PUT /api/auth/password', () => {
    it('changes the password and revokes every other session, keeping the caller’s', async () => {
      const u = await c.user();
      const other = (await c.api('POST', '/api/auth/login', { email: u.email, password: u.password })).json.token;
      const r = await c.api(
        'PUT',
        '/api/auth/password',
        { oldPassword: u.password, newPassword: 'brand-new-pass' },
        u.token,
      );
      expect(r.status).toBe(204);
      expectError(await c.api('GET', '/api/auth/me', undefined, other), 401, 'unauthorized');
      expect((await c.api('GET', '/api/auth/me', undefined, u.token)).status).toBe(200);
      expectError(
        await c.api('POST', '/api/auth/login', { email: u.email, password: u.password }),
        401,
        'invalid_credentials',
      );
      const login = await c.api('POST', '/api/auth/login', { email: u.email, password: 'brand-new-pass' });
      expect(login.status).toBe(200);
    });

    it('answers 401 invalid_credentials for a wrong old password and changes nothing', async () => {
      const u = await c.user();
      const other = (await c.api('POST', '/api/auth/login', { email: u.email, password: u.password })).json.token;
      const r = await c.api(
        'PUT',
        '/api/auth/password',
        { oldPassword: 'wrong-password', newPassword: 'brand-new-pass' },
        u.token,
      );
      expectError(r, 401, 'invalid_credentials');
      expect((await c.api('GET', '/api/auth/me', undefined, other)).status).toBe(200);
      expect((await c.api('POST', '/api/auth/login', { email: u.email, password: u.password })).status).toBe(200);
    });

    it('answers 400 for a short new password or an unknown field, and 401 without a token', async () => {
      const u = await c.user();
      expectValidation(
        await c.api('PUT', '/api/auth/password', { oldPassword: u.password, newPassword: 'short' }, u.token),
        '/newPassword',
      );
      expectValidation(
        await c.api(
          'PUT',
          '/api/auth/password',
          { oldPassword: u.password, newPassword: 'long enough', x: 1 },
          u.token,
        ),
        '/x',
      );
      expectError(
        await c.api('PUT', '/api/auth/password', { oldPassword: u.password, newPassword: 'long enough' }),
        401,
        'unauthorized',
      );
      expect((await c.api('POST', '/api/auth/login', { email: u.email, password: u.password })).status).toBe(200);
    });
  });

  describe('admin API', () => {
    const patchPlan = (userId: string, body: unknown, token: string | null = ADMIN_TOKEN) =>
      c.api('PATCH', `/api/admin/users/${userId}`, body, token);

    it('sets a plan with the admin token; the user sees it and gets its rule limit', async () => {
      const f = await c.fixture();
      for (let i = 0; i < 3; i++) await c.rule(f.token, f.pid, f.eid, { name: `r${i}` });
      const path = `/api/projects/${f.pid}/endpoints/${f.eid}/rules`;
      expectError(await c.api('POST', path, { name: 'r3' }, f.token), 403, 'plan_limit_exceeded');
      const r = await patchPlan(f.id, { plan: 'pro' });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ id: f.id, plan: 'pro' });
      expect(Object.keys(r.json).sort()).toEqual(['createdAt', 'email', 'id', 'plan']);
      expect((await c.api('GET', '/api/auth/me', undefined, f.token)).json.plan).toBe('pro');
      expect((await c.api('POST', path, { name: 'r3' }, f.token)).status).toBe(201);
      expect((await patchPlan(f.id, { plan: 'business' })).json.plan).toBe('business');
      expect((await patchPlan(f.id, { plan: 'free' })).json.plan).toBe('free');
    });

    it('answers 401 for a wrong, missing or user token and changes nothing', async () => {
      const u = await c.user();
      expectError(await patchPlan(u.id, { plan: 'pro' }, 'wrong-admin-token'), 401, 'unauthorized');
      expectError(await patchPlan(u.id, { plan: 'pro' }, `${ADMIN_TOKEN}x`), 401, 'unauthorized');
      expectError(await patchPlan(u.id, { plan: 'pro' }, null), 401, 'unauthorized');
      expectError(await patchPlan(u.id, { plan: 'pro' }, u.token), 401, 'unauthorized');
      expect((await c.api('GET', '/api/auth/me', undefined, u.token)).json.plan).toBe('free');
    });

    it('answers 404 for an unknown user and 400 for a bad plan or unknown field', async () => {
      const u = await c.user();
      expectError(await patchPlan('no-such-user', { plan: 'pro' }), 404, 'not_found');
      expectValidation(await patchPlan(u.id, { plan: 'platinum' }), '/plan');
      expectValidation(await patchPlan(u.id, {}), '/plan');
      expectValidation(await patchPlan(u.id, { plan: 'pro', email: 'x@y.z' }), '/email');
      expect((await c.api('GET', '/api/auth/me', undefined, u.token)).json.plan).toBe('free');
    });
  });

  describe('health, readiness and OpenAPI', () => {
    it('GET /healthz answers 200 {"status":"ok"} without auth', async () => {
      const r = await c.api('GET', '/healthz');
      expect(r.status).toBe(200);
      expect(r.json).toEqual({ status: 'ok' });
    });

    it('GET /readyz answers 200 while the database answers', async () => {
      const r = await c.api('GET', '/readyz');
      expect(r.status).toBe(200);
    });

    it('GET /api/openapi.json is a valid OpenAPI 3.1 document listing the routes, without auth', async () => {
      const r = await c.api('GET', '/api/openapi.json');
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(String(r.json.openapi)).toMatch(/^3\.1\./);
      const result = await validate(structuredClone(r.json));
      expect(result.valid, JSON.stringify(result)).toBe(true);
      const paths = r.json.paths as Record<string, Record<string, unknown>>;
      const expected: [string, string[]][] = [
        ['/api/auth/register', ['post']],
        ['/api/auth/login', ['post']],
        ['/api/auth/logout', ['post']],
        ['/api/auth/me', ['get']],
        ['/api/auth/password', ['put']],
        ['/api/projects', ['get', 'post']],
        ['/api/projects/{id}', ['get', 'put', 'patch', 'delete']],
        ['/api/projects/{projectId}/endpoints', ['get', 'post']],
        ['/api/projects/{projectId}/endpoints/{id}', ['get', 'put', 'patch', 'delete']],
        ['/api/projects/{projectId}/endpoints/{id}/storage', ['get', 'delete']],
        ['/api/projects/{projectId}/endpoints/{endpointId}/rules', ['get', 'post']],
        ['/api/projects/{projectId}/endpoints/{endpointId}/rules/{ruleId}', ['get', 'put', 'patch', 'delete']],
        ['/api/projects/{projectId}/endpoints/{endpointId}/rules/{ruleId}/reset', ['post']],
        ['/api/projects/{projectId}/requests', ['get']],
        ['/api/projects/{projectId}/requests/stream', ['get']],
        ['/api/admin/users/{userId}', ['patch']],
      ];
      for (const [p, methods] of expected) {
        expect(paths[p], `${p} is listed`).toBeDefined();
        for (const m of methods) expect(paths[p][m], `${m.toUpperCase()} ${p}`).toBeDefined();
      }
    });
  });
});
