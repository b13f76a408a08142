/**
 * A webhook target the egress will refuse is saved, and the answer says so (issue 20): loopback,
 * private and localhost targets not in MOCKYARD_ALLOW_TARGETS; templated hosts and public names
 * get no warning (names are not resolved at save). No request is sent anywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('warnings at save for blocked webhook targets', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite', { allowTargets: ['127.0.0.1:9999'] });
  });
  afterAll(() => s.close());

  const hook = (url: string) => ({ type: 'http_request', url });

  it('warns on loopback, private and localhost targets, not on allowed, templated or public ones', async () => {
    const f = await s.client.fixture({ method: 'POST', path: '/orders' });
    const create = (actions: unknown[]) =>
      s.client.api('POST', `/api/projects/${f.pid}/endpoints/${f.eid}/rules`, { name: 'hooks', actions }, f.token);
    const r = await create([
      hook('http://127.0.0.1:8080/hook'),
      hook('http://127.0.0.1:9999/ok'),
      hook('http://{{vars.host}}/x'),
      hook('http://10.1.2.3/x'),
      hook('https://api.example.com/x'),
      hook('http://LOCALHOST:3000/x'),
      hook('http://[::ffff:192.168.0.1]/x'),
    ]);
    expect(r.status).toBe(201);
    expect(r.json.warnings.map((w: { path: string }) => w.path)).toEqual([
      '/actions/0/url',
      '/actions/3/url',
      '/actions/5/url',
      '/actions/6/url',
    ]);
    expect(r.json.warnings[0].message).toMatch(/MOCKYARD_ALLOW_TARGETS lists 127\.0\.0\.1:8080/);
    const clean = await create([hook('https://api.example.com/x')]);
    expect(clean.json).not.toHaveProperty('warnings');
    const patched = await s.client.api(
      'PATCH',
      `/api/projects/${f.pid}/endpoints/${f.eid}/rules/${clean.json.id}`,
      { actions: [hook('http://192.168.1.1/x')] },
      f.token,
    );
    expect(patched.status).toBe(200);
    expect(patched.json.warnings).toHaveLength(1);
  });
});
