/**
 * An endpoint's own headers on its default answer (docs/api.md "Endpoints"): fixed and templated
 * values, validated like a step's, replacing our CORS default instead of doubling it, exported.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/expect.js';
import { exchange } from '../helpers/raw-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('endpoint headers', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
  });
  afterAll(() => s.close());

  it('are sent with the default answer, fixed or templated, once each', async () => {
    const c = s.client;
    const u = await c.user();
    const p = await c.project(u.token);
    const fixed = await c.endpoint(u.token, p.id, {
      method: 'GET',
      path: '/fixed',
      responseBody: 'ok',
      headers: { 'Cache-Control': 'max-age=60', 'Access-Control-Allow-Origin': 'https://app.example' },
    });
    expect(fixed.headers).toEqual({
      'Cache-Control': 'max-age=60',
      'Access-Control-Allow-Origin': 'https://app.example',
    });
    for (let i = 0; i < 2; i++) {
      const { text } = await exchange(s.running.port, `GET /m/${p.id}/fixed HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(text).toMatch(/\r\ncache-control: max-age=60\r\n/i);
      expect(text.match(/access-control-allow-origin:/gi)).toHaveLength(1);
      expect(text).toMatch(/access-control-allow-origin: https:\/\/app\.example/i);
      expect(text.endsWith('ok')).toBe(true);
    }
    await c.endpoint(u.token, p.id, {
      method: 'GET',
      path: '/t/:id',
      responseBody: 'same',
      headers: { 'x-id': 'id-{{request.params.id}}' },
    });
    const r = await c.mock(p.id, 'GET', '/t/9');
    expect(r.headers.get('x-id')).toBe('id-9');
    expect(r.text).toBe('same');
    const bad = await c.api(
      'POST',
      `/api/projects/${p.id}/endpoints`,
      { method: 'GET', path: '/bad', headers: { 'x-a': 'a\r\nb' } },
      u.token,
    );
    expectError(bad, 400, 'validation_failed');
    expect(bad.json.error.details[0].path).toBe('/headers/x-a');
    // changed through PATCH, carried by the export
    const patched = await c.api(
      'PATCH',
      `/api/projects/${p.id}/endpoints/${fixed.id}`,
      { headers: { 'x-v': '2' } },
      u.token,
    );
    expect(patched.json.headers).toEqual({ 'x-v': '2' });
    expect((await c.mock(p.id, 'GET', '/fixed')).headers.get('x-v')).toBe('2');
    const doc = (await c.api('GET', `/api/projects/${p.id}/export`, undefined, u.token)).json;
    expect(doc.endpoints.find((e: { path: string }) => e.path === '/fixed').headers).toEqual({ 'x-v': '2' });
  });
});
