/**
 * Rules over HTTP, continued (docs/api.md "Rules", docs/limits.md): plan limits per endpoint (also under
 * concurrent creates), reset and when a sequence restarts, and tenancy.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { expectError, rulePath, rulesPath, statuses as statusesOf } from '../helpers/rules-api.js';
import { ADMIN_TOKEN, startTestServer, type TestClient, type TestServer } from '../helpers/server.js';

for (const dialect of DIALECTS) {
  describe(`rules API: limits, resets and tenancy (${dialect})`, () => {
    let server: TestServer;
    let client: TestClient;

    beforeAll(async () => {
      server = await startTestServer(dialect);
      client = server.client;
    });
    afterAll(async () => {
      await server?.close();
    });

    const statuses = (f: { pid: string; endpoint: { path: string } }, n: number) => statusesOf(client, f, n);

    it('enforces plan limits per endpoint (free 3, pro 15, business 25), set through the admin API', async () => {
      const f = await client.fixture({ method: 'GET', path: '/limits' });
      const add = (i: number, eid = f.eid) => client.api('POST', rulesPath(f.pid, eid), { name: `r${i}` }, f.token);
      const setPlan = (plan: string, token = ADMIN_TOKEN) =>
        client.api('PATCH', `/api/admin/users/${f.id}`, { plan }, token);

      for (let i = 1; i <= 3; i++) expect((await add(i)).status).toBe(201);
      expectError(await add(4), 403, 'plan_limit_exceeded', 'free: 4th rule');
      const other = await client.endpoint(f.token, f.pid, { method: 'POST', path: '/limits' });
      expect((await add(1, other.id)).status).toBe(201); // per endpoint

      // only the admin token may change a plan
      expectError(await setPlan('pro', f.token), 401, 'unauthorized', 'a user token on the admin API');
      expectError(await setPlan('gold'), 400, 'validation_failed', 'unknown plan');
      const set = await setPlan('pro');
      expect(set.status).toBe(200);
      expect(set.json).toMatchObject({ id: f.id, plan: 'pro' });
      expect((await client.api('GET', '/api/auth/me', undefined, f.token)).json.plan).toBe('pro');
      for (let i = 4; i <= 15; i++) expect((await add(i)).status).toBe(201);
      expectError(await add(16), 403, 'plan_limit_exceeded', 'pro: 16th rule');

      expect((await setPlan('business')).status).toBe(200);
      for (let i = 16; i <= 25; i++) expect((await add(i)).status).toBe(201);
      expectError(await add(26), 403, 'plan_limit_exceeded', 'business: 26th rule');

      // deleting one frees a place
      const list = (await client.api('GET', rulesPath(f.pid, f.eid), undefined, f.token)).json;
      expect(list).toHaveLength(25);
      expect((await client.api('DELETE', rulePath(f.pid, f.eid, list[0].id), undefined, f.token)).status).toBe(204);
      expect((await add(26)).status).toBe(201);
      expectError(await add(27), 403, 'plan_limit_exceeded', 'business: again full');
    });

    it('holds the limit under concurrent creates: 12 at once on a free endpoint → exactly 3 created', async () => {
      const f = await client.fixture({ method: 'GET', path: '/race' });
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) => client.api('POST', rulesPath(f.pid, f.eid), { name: `r${i}` }, f.token)),
      );
      const codes = answers.map((a) => a.status).sort();
      expect(codes).toEqual([...Array(3).fill(201), ...Array(9).fill(403)]);
      expect((await client.api('GET', rulesPath(f.pid, f.eid), undefined, f.token)).json).toHaveLength(3);
    });

    it('reset → 200 Rule at {step:0, served:0}, and the sequence restarts', async () => {
      const f = await client.fixture({ method: 'GET', path: '/reset', statusCode: 418 });
      const rule = await client.rule(f.token, f.pid, f.eid, {
        response: { mode: 'loop', steps: [{ statusCode: 500, count: 2 }, { statusCode: 200 }] },
      });
      const rp = rulePath(f.pid, f.eid, rule.id);
      const state = async () => (await client.api('GET', rp, undefined, f.token)).json.state;

      expect(await statuses(f, 1)).toEqual([500]);
      expect(await state()).toEqual({ step: 0, served: 1 });
      expect(await statuses(f, 1)).toEqual([500]);
      expect(await state()).toEqual({ step: 1, served: 0 });

      const r = await client.api('POST', rp + '/reset', undefined, f.token);
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ id: rule.id, name: rule.name, state: { step: 0, served: 0 } });
      expect(await state()).toEqual({ step: 0, served: 0 });
      expect(await statuses(f, 3)).toEqual([500, 500, 200]); // 200 would have come first without the reset
    });

    it('changing `response` resets the sequence; changing name, conditions, active or resending the same response does not', async () => {
      const f = await client.fixture({ method: 'GET', path: '/restart', statusCode: 418 });
      const response = { mode: 'loop', steps: [{ statusCode: 500, count: 2 }, { statusCode: 200 }] };
      const rule = await client.rule(f.token, f.pid, f.eid, { response });
      const rp = rulePath(f.pid, f.eid, rule.id);
      const patch = async (body: Record<string, unknown>) => {
        const r = await client.api('PATCH', rp, body, f.token);
        expect(r.status).toBe(200);
        return r.json.state;
      };

      expect(await statuses(f, 1)).toEqual([500]);
      expect(await patch({ name: 'renamed' })).toEqual({ step: 0, served: 1 });
      expect(await patch({ conditions: [{ target: 'method', operator: 'equals', value: 'GET' }] })).toEqual({
        step: 0,
        served: 1,
      });
      expect(await patch({ active: true })).toEqual({ step: 0, served: 1 });
      expect(await patch({ response })).toEqual({ step: 0, served: 1 });
      expect(await statuses(f, 1)).toEqual([500]); // the position was kept

      const changed = { mode: 'loop', steps: [{ statusCode: 501, count: 2 }, { statusCode: 201 }] };
      expect(await patch({ response: changed })).toEqual({ step: 0, served: 0 });
      expect(await statuses(f, 3)).toEqual([501, 501, 201]);
    });

    it('is tenant-scoped: another user gets 404 for every rule route, and nothing changes', async () => {
      const f = await client.fixture({ method: 'GET', path: '/mine' });
      const rule = await client.rule(f.token, f.pid, f.eid, { response: { steps: [{ statusCode: 201 }] } });
      const other = await client.user();
      const rp = rulePath(f.pid, f.eid, rule.id);
      const attempts: [string, string, unknown][] = [
        ['GET', rulesPath(f.pid, f.eid), undefined],
        ['POST', rulesPath(f.pid, f.eid), { name: 'x' }],
        ['GET', rp, undefined],
        ['PATCH', rp, { name: 'stolen' }],
        ['PUT', rp, { name: 'stolen' }],
        ['POST', `${rp}/reset`, undefined],
        ['DELETE', rp, undefined],
      ];
      for (const [method, p, body] of attempts) {
        expectError(await client.api(method, p, body, other.token), 404, 'not_found', `${method} ${p} as another user`);
        expectError(await client.api(method, p, body), 401, 'unauthorized', `${method} ${p} without a token`);
      }
      expect((await client.api('GET', rulesPath(f.pid, f.eid), undefined, f.token)).json).toEqual([rule]);
    });
  });
}
