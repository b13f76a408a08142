/**
 * A mock request that matched no endpoint gets, beside `mock_not_found`, the endpoints nearest to it
 * (`nearest: [{method, path, distance, why}]`, at most three), in the answer and in its log entry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('nearest endpoints of a miss', () => {
  let s: TestServer;
  let token: string;
  let pid: string;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
    token = (await s.client.user()).token;
    pid = (await s.client.project(token)).id;
    for (const [method, path] of [
      ['GET', '/api/users/:id'],
      ['POST', '/api/orders'],
      ['GET', '/health'],
      ['GET', '/files/*'],
    ])
      await s.client.endpoint(token, pid, { method, path });
  });
  afterAll(() => s.close());

  const miss = async (method: string, path: string) => {
    const r = await s.client.mock(pid, method, path);
    expect(r.status).toBe(404);
    expect(r.json.error.code).toBe('mock_not_found');
    return r.json.nearest as { method: string; path: string; why: string }[] | undefined;
  };

  it('a typo in a segment, another method, a missing or an extra prefix — each said in words', async () => {
    const typo = await miss('GET', '/api/user/42');
    expect(typo?.[0]).toEqual({
      method: 'GET',
      path: '/api/users/:id',
      distance: 1,
      why: 'segment 2 is "user" where the endpoint has "users"',
    });
    const method = await miss('GET', '/api/orders');
    expect(method?.[0]).toMatchObject({
      method: 'POST',
      path: '/api/orders',
      distance: 0,
      why: expect.stringMatching(/answers POST, not GET/),
    });
    const prefix = await miss('GET', '/users/42');
    expect(prefix?.[0]).toMatchObject({ path: '/api/users/:id', why: expect.stringMatching(/starts with "\/api"/) });
    // a typo in the only literal segment is still near
    const lone = await miss('GET', '/helth');
    expect(lone?.[0]).toMatchObject({
      path: '/health',
      distance: 1,
      why: 'segment 1 is "helth" where the endpoint has "health"',
    });
    const extra = await miss('GET', '/v1/health');
    expect(extra?.[0]).toMatchObject({ path: '/health', why: expect.stringMatching(/has "\/v1" before/) });
    // nothing close: no list at all
    expect(await miss('DELETE', '/a/b/c/d/e/f')).toBeUndefined();
  });

  it('the log entry carries the same list', async () => {
    await s.client.mock(pid, 'GET', '/api/user/7');
    let entry: { nearest?: unknown[]; path: string } | undefined;
    for (let i = 0; i < 100 && !entry; i++) {
      const list = (await s.client.api('GET', `/api/projects/${pid}/requests`, undefined, token)).json;
      entry = list.find((e: { path: string }) => e.path === '/api/user/7');
      if (!entry) await new Promise((r) => setTimeout(r, 20));
    }
    expect(entry?.nearest?.[0]).toMatchObject({ path: '/api/users/:id' });
  });
});
