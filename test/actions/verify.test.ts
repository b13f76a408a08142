/**
 * Request verification (docs/testing.md): count and find logged mock requests by a filter, read
 * through the log (a request answered before the call returns is counted), and clearing the log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { expectError, expectValidation } from '../helpers/expect.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe.each(DIALECTS)('request verification (%s)', (dialect) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(dialect);
  });
  afterAll(() => s.close());

  it('counts and finds by every filter field, read through at once', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'POST', path: '/orders/:id', statusCode: 201 });
    const rule = await c.rule(f.token, f.pid, f.eid, {
      conditions: [{ target: 'header', key: 'x-fail', operator: 'exists' }],
      response: { steps: [{ statusCode: 503 }] },
    });
    const before = new Date().toISOString();
    await c.mock(f.pid, 'POST', '/orders/1', { headers: { 'x-tenant': 'acme' } });
    await c.mock(f.pid, 'POST', '/orders/2', { headers: { 'x-mockyard-session': 'run-1', 'x-fail': '1' } });
    await c.mock(f.pid, 'POST', '/orders/2', { headers: { 'x-mockyard-session': 'run-1' } });
    await c.mock(f.pid, 'GET', '/nothing');
    const count = async (filter: unknown) =>
      (await c.api('POST', `/api/projects/${f.pid}/requests/count`, filter, f.token)).json.count;
    expect(await count({})).toBe(4);
    expect(await count({ method: 'post' })).toBe(3);
    expect(await count({ path: '/orders/2' })).toBe(2);
    expect(await count({ path: '/orders' })).toBe(0);
    expect(await count({ pathPattern: '/orders/\\d+' })).toBe(3);
    expect(await count({ pathPattern: 'orders' })).toBe(0); // anchored
    expect(await count({ endpointId: f.eid })).toBe(3);
    expect(await count({ ruleId: rule.id })).toBe(1);
    expect(await count({ session: 'run-1' })).toBe(2);
    expect(await count({ session: '' })).toBe(2);
    expect(await count({ statusCode: 201 })).toBe(2);
    expect(await count({ headers: { 'X-Tenant': 'acme' } })).toBe(1);
    expect(await count({ headers: { 'x-tenant': 'ACME' } })).toBe(0);
    expect(await count({ since: before, method: 'GET' })).toBe(1);
    expect(await count({ since: new Date(Date.now() + 60_000).toISOString() })).toBe(0);
    const found = await c.api('POST', `/api/projects/${f.pid}/requests/find`, { path: '/orders/2' }, f.token);
    expect(found.json.map((e: { statusCode: number }) => e.statusCode)).toEqual([503, 201]); // oldest first
    expect(found.json[0]).toMatchObject({ method: 'POST', session: 'run-1', ruleId: rule.id });
    expectValidation(
      await c.api('POST', `/api/projects/${f.pid}/requests/count`, { pathPattern: '(' }, f.token),
      '/pathPattern',
    );
    expectValidation(
      await c.api('POST', `/api/projects/${f.pid}/requests/count`, { since: 'yesterday' }, f.token),
      '/since',
    );
    expectValidation(await c.api('POST', `/api/projects/${f.pid}/requests/count`, { nope: 1 }, f.token), '/nope');
  });

  it('counts every request answered before the call, under concurrency', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'GET', path: '/burst' });
    await Promise.all(Array.from({ length: 120 }, () => c.mock(f.pid, 'GET', '/burst')));
    const r = await c.api('POST', `/api/projects/${f.pid}/requests/count`, { path: '/burst' }, f.token);
    expect(r.json.count).toBe(120);
  });

  it('clears one session or the whole log; owner-scoped', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'GET', path: '/c' });
    await c.mock(f.pid, 'GET', '/c', { headers: { 'x-mockyard-session': 'a' } });
    await c.mock(f.pid, 'GET', '/c', { headers: { 'x-mockyard-session': 'b' } });
    await c.mock(f.pid, 'GET', '/c');
    const count = async () => (await c.api('POST', `/api/projects/${f.pid}/requests/count`, {}, f.token)).json.count;
    expect((await c.api('DELETE', `/api/projects/${f.pid}/requests?session=a`, undefined, f.token)).status).toBe(204);
    expect(await count()).toBe(2);
    const other = await c.user();
    expectError(await c.api('DELETE', `/api/projects/${f.pid}/requests`, undefined, other.token), 404, 'not_found');
    expectError(await c.api('POST', `/api/projects/${f.pid}/requests/count`, {}, other.token), 404, 'not_found');
    expect((await c.api('DELETE', `/api/projects/${f.pid}/requests`, undefined, f.token)).status).toBe(204);
    expect(await count()).toBe(0);
    expect((await c.api('GET', `/api/projects/${f.pid}/requests`, undefined, f.token)).json).toEqual([]);
  });
});
