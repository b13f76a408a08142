/**
 * Servers started with other settings, on every database (docs/api.md "Authentication", docs/deploy.md):
 * login and register rate limits per address and per email, no admin API without an admin token, and
 * /readyz when the database does not answer.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { expectError, expectNoStack } from '../helpers/expect.js';
import { ADMIN_TOKEN, request, startTestServer } from '../helpers/server.js';

const email = () => `a-${randomBytes(5).toString('hex')}@Example.test`;

describe.each(DIALECTS)('servers with other settings on %s', (dialect) => {
  it('rate limits login and register per client address and per email with 429 rate_limited', async () => {
    // 7 attempts per minute per address, max(5, 7/3) = 5 per email
    const s = await startTestServer(dialect, { authRatePerMinute: 7 });
    try {
      const c = s.client;
      const u = await c.user(); // address 1, email 1
      for (let i = 0; i < 4; i++) {
        const r = await c.api('POST', '/api/auth/login', { email: u.email, password: 'wrong-password' });
        expectError(r, 401, 'invalid_credentials'); // address 2..5, email 2..5
      }
      // the email is spent: even the right password is refused
      const limited = await c.api('POST', '/api/auth/login', { email: u.email.toUpperCase(), password: u.password });
      expectError(limited, 429, 'rate_limited'); // address 6
      // another email from the same address is still answered
      const other = await c.api('POST', '/api/auth/login', { email: email(), password: 'whatever-pass' });
      expectError(other, 401, 'invalid_credentials'); // address 7
      // the address is spent: login and register both 429
      expectError(
        await c.api('POST', '/api/auth/login', { email: email(), password: 'whatever-pass' }),
        429,
        'rate_limited',
      );
      expectError(
        await c.api('POST', '/api/auth/register', { email: email(), password: 'whatever-pass' }),
        429,
        'rate_limited',
      );
      // sessions already issued keep working; other routes are not limited
      expect((await c.api('GET', '/api/auth/me', undefined, u.token)).status).toBe(200);
      expect((await c.api('GET', '/api/projects', undefined, u.token)).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('answers 404 for /api/admin/* when no admin token is configured', async () => {
    const s = await startTestServer(dialect, { adminToken: null });
    try {
      const c = s.client;
      const u = await c.user();
      const r = await c.api('PATCH', `/api/admin/users/${u.id}`, { plan: 'pro' }, ADMIN_TOKEN);
      expectError(r, 404, 'not_found');
      expectError(await c.api('PATCH', `/api/admin/users/${u.id}`, { plan: 'pro' }), 404, 'not_found');
      expectError(await c.api('GET', '/api/admin/users', undefined, ADMIN_TOKEN), 404, 'not_found');
      expect((await c.api('GET', '/api/auth/me', undefined, u.token)).json.plan).toBe('free');
    } finally {
      await s.close();
    }
  });

  it('GET /readyz answers 503 with the error shape when the database does not answer', async () => {
    const s = await startTestServer(dialect);
    try {
      expect((await request(`${s.running.url}/readyz`)).status).toBe(200);
      await s.running.store.close();
      const r = await request(`${s.running.url}/readyz`);
      expect(r.status).toBe(503);
      expect(Object.keys(r.json)).toEqual(['error']);
      expectNoStack(r.text);
      expect((await request(`${s.running.url}/healthz`)).status).toBe(200);
    } finally {
      await s.close().catch(() => {});
    }
  });
});
