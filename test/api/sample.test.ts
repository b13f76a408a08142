/**
 * The sample project (docs/api.md "Presets"): `POST …/presets {preset: "sample"}` imports the sample
 * shop — a collection with its REST endpoints, a template, a rule and a sequence — and each answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('the sample project preset', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
  });
  afterAll(() => s.close());

  it('creates working endpoints on a free account, and refuses a second time', async () => {
    const u = await s.client.user();
    const p = await s.client.project(u.token, 'Sample shop');
    const r = await s.client.api('POST', `/api/projects/${p.id}/presets`, { preset: 'sample' }, u.token);
    expect(r.status).toBe(201);
    expect(r.json.created.map((e: { method: string; path: string }) => `${e.method} ${e.path}`).sort()).toEqual([
      'GET /api/hello',
      'GET /api/products',
      'GET /api/products/:id',
      'GET /api/status',
      'POST /api/orders',
      'POST /api/products',
    ]);
    const m = (method: string, path: string, opts = {}) => s.client.mock(p.id, method, path, opts);
    expect((await m('GET', '/api/hello', { query: 'name=Ada' })).json).toMatchObject({ hello: 'Ada' });
    expect((await m('GET', '/api/hello')).json).toMatchObject({ hello: 'world' });
    expect((await m('GET', '/api/products/2')).json).toEqual({ id: 2, name: 'Teapot', price: 30 });
    expect((await m('GET', '/api/products')).json).toHaveLength(3);
    const vip = await m('POST', '/api/orders', {
      headers: { 'x-tier': 'vip', 'content-type': 'application/json' },
      body: '{"item":"mug"}',
    });
    expect(vip.status).toBe(201);
    expect(vip.json).toMatchObject({ status: 'created', priority: true });
    const plain = await m('POST', '/api/orders', {
      headers: { 'content-type': 'application/json' },
      body: '{"item":"mug"}',
    });
    expect(plain.json).toMatchObject({ status: 'created', item: 'mug' });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await m('GET', '/api/status')).status);
    expect(statuses).toEqual([200, 200, 503]);
    const again = await s.client.api('POST', `/api/projects/${p.id}/presets`, { preset: 'sample' }, u.token);
    expect(again.status).toBe(409);
  });
});
