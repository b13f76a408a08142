/**
 * Project export / import: a round trip into a fresh account behaves identically on the mock URLs
 * (default answers, rules, actions, stored variables, sequences from step 0); imports are validated
 * strictly and all or nothing; plan limits apply; tenancy holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.js';

type Json = Record<string, unknown>;

for (const dialect of DIALECTS) {
  describe(`project export / import (${dialect})`, () => {
    let s: TestServer;
    beforeAll(async () => {
      s = await startTestServer(dialect);
    });
    afterAll(async () => {
      await s?.close();
    });

    const setPlan = async (userId: string, plan: string) => {
      const r = await s.client.api('PATCH', `/api/admin/users/${userId}`, { plan }, ADMIN_TOKEN);
      expect(r.status).toBe(200);
    };
    const exportOf = async (token: string, pid: string, query = '') => {
      const r = await s.client.api('GET', `/api/projects/${pid}/export${query}`, undefined, token);
      expect(r.status).toBe(200);
      return r.json;
    };
    const importDoc = (token: string, doc: unknown, query = '') =>
      s.client.api('POST', `/api/projects/import${query}`, doc, token);
    const projectsOf = async (token: string) => (await s.client.api('GET', '/api/projects', undefined, token)).json;

    /** A project that uses every kind of thing an export carries (4 rules on one endpoint: pro plan). */
    async function richProject() {
      const u = await s.client.user();
      await setPlan(u.id, 'pro');
      const p = await s.client.project(u.token, 'Shop');
      await s.client.api('PATCH', `/api/projects/${p.id}`, { fallbackUrl: 'https://example.com/api' }, u.token);
      const users = await s.client.endpoint(u.token, p.id, {
        method: 'GET',
        path: '/users/:id',
        responseBody: '{"id":"{{request.params.id}}","last":"{{endpoint.last}}"}',
      });
      await s.client.rule(u.token, p.id, users.id, {
        name: 'VIP',
        priority: 1,
        conditions: [{ target: 'header', key: 'x-tier', operator: 'equals', value: 'vip' }],
        response: {
          steps: [
            { statusCode: 200, body: 'vip {{request.params.id}} last={{endpoint.last}}', headers: { 'x-kind': 'vip' } },
          ],
        },
      });
      await s.client.rule(u.token, p.id, users.id, {
        name: 'flaky',
        priority: 5,
        conditions: [{ target: 'query', key: 'flaky', operator: 'exists' }],
        response: {
          mode: 'loop',
          steps: [
            { statusCode: 500, body: 'boom', count: 2 },
            { statusCode: 200, body: 'ok', headers: { 'content-type': 'text/plain' } },
          ],
        },
      });
      await s.client.rule(u.token, p.id, users.id, {
        name: 'remember',
        priority: 10,
        conditions: [{ target: 'path', operator: 'matches_regex', value: '^/users/[0-9]+$' }],
        actions: [
          { type: 'set_variable', name: 'who', value: '{{request.params.id}}' },
          { type: 'store_variable', name: 'last', value: '{{vars.who}}', onError: 'stop' },
        ],
      });
      await s.client.rule(u.token, p.id, users.id, {
        name: 'teapot (off)',
        priority: 20,
        active: false,
        response: { steps: [{ statusCode: 418 }] },
      });
      const orders = await s.client.endpoint(u.token, p.id, {
        method: 'POST',
        path: '/orders',
        statusCode: 201,
        responseBody: 'created',
        contentType: 'text/plain',
      });
      await s.client.rule(u.token, p.id, orders.id, {
        name: 'first then again',
        response: {
          mode: 'hold_last',
          steps: [
            { statusCode: 201, body: 'first' },
            { statusCode: 200, body: 'again' },
          ],
        },
      });
      await s.client.endpoint(u.token, p.id, { method: 'DELETE', path: '/files/*', statusCode: 204 });
      return { ...u, pid: p.id, usersId: users.id, ordersId: orders.id };
    }

    /** The same requests against a project; answers as comparable tuples. */
    async function script(pid: string) {
      const calls: [string, string, Record<string, string>?][] = [
        ['GET', '/users/9', { 'x-tier': 'vip' }],
        ['GET', '/users/3?flaky=1'],
        ['GET', '/users/3?flaky=1'],
        ['GET', '/users/3?flaky=1'],
        ['GET', '/users/3?flaky=1'],
        ['GET', '/users/4'],
        ['GET', '/users/9', { 'x-tier': 'vip' }],
        ['POST', '/orders'],
        ['POST', '/orders'],
        ['POST', '/orders'],
        ['DELETE', '/files/a/b'],
      ];
      const out: [number, string | null, string, string | null][] = [];
      for (const [method, target, headers] of calls) {
        const [p, query] = target.split('?');
        const r = await s.client.mock(pid, method, p, { query, headers });
        out.push([r.status, r.headers.get('content-type'), r.text, r.headers.get('x-kind')]);
      }
      return out;
    }

    const EXPECTED = [
      [200, 'application/json', 'vip 9 last=7', 'vip'],
      [500, 'application/json', 'boom', null],
      [500, 'application/json', 'boom', null],
      [200, 'text/plain', 'ok', null],
      [500, 'application/json', 'boom', null],
      [200, 'application/json', '{"id":"4","last":"4"}', null],
      [200, 'application/json', 'vip 9 last=4', 'vip'],
      [201, 'text/plain', 'first', null],
      [200, 'text/plain', 'again', null],
      [200, 'text/plain', 'again', null],
      [204, 'application/json', '', null],
    ];

    it('round-trips a project into a fresh account with identical mock behaviour', async () => {
      const a = await richProject();
      // use the original: sequences move on and `last` is stored
      expect((await s.client.mock(a.pid, 'GET', '/users/3', { query: 'flaky=1' })).status).toBe(500);
      expect((await s.client.mock(a.pid, 'POST', '/orders')).text).toBe('first');
      expect((await s.client.mock(a.pid, 'GET', '/users/7')).json).toEqual({ id: '7', last: '7' });

      const doc = await exportOf(a.token, a.pid, '?storage=true');
      expect(doc).toMatchObject({
        mockyard: 1,
        exportedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        project: { name: 'Shop', fallbackUrl: 'https://example.com/api' },
        storage: { 'GET /users/:id': { last: '7' } },
      });
      expect(doc.endpoints.map((e: Json) => `${e.method} ${e.path}`)).toEqual([
        'GET /users/:id',
        'POST /orders',
        'DELETE /files/*',
      ]);
      expect(doc.endpoints[0].rules.map((r: Json) => r.name)).toEqual(['VIP', 'flaky', 'remember', 'teapot (off)']);
      expect(Object.keys(doc.endpoints[0].rules[0]).sort()).toEqual(
        ['actions', 'active', 'conditions', 'name', 'priority', 'response'].sort(),
      );
      expect(JSON.stringify(doc)).not.toMatch(/"(id|createdAt|state|hits|projectId)"/);

      const b = await s.client.user();
      await setPlan(b.id, 'pro');
      const r = await importDoc(b.token, doc);
      expect(r.status).toBe(201);
      expect(r.json).toMatchObject({
        name: 'Shop',
        fallbackUrl: 'https://example.com/api',
        mockUrl: `/m/${r.json.slug}`,
      });
      expect(r.json.id).not.toBe(a.pid);
      expect((await projectsOf(b.token)).map((p: Json) => p.id)).toEqual([r.json.id]);

      // the imported project is the same document (ids, times and positions aside)
      const again = await exportOf(b.token, r.json.id, '?storage=true');
      expect({ ...again, exportedAt: '' }).toEqual({ ...doc, exportedAt: '' });
      // its sequences start at step 0
      const rules = await s.client.api(
        'GET',
        `/api/projects/${r.json.id}/endpoints/${(await s.client.api('GET', `/api/projects/${r.json.id}/endpoints`, undefined, b.token)).json[0].id}/rules`,
        undefined,
        b.token,
      );
      expect(rules.json.map((x: Json) => x.state)).toEqual(Array(4).fill({ step: 0, served: 0 }));

      // the original from step 0 too, then the same requests give the same answers
      for (const id of [a.usersId, a.ordersId]) {
        const list = await s.client.api('GET', `/api/projects/${a.pid}/endpoints/${id}/rules`, undefined, a.token);
        for (const rule of list.json) {
          const reset = await s.client.api(
            'POST',
            `/api/projects/${a.pid}/endpoints/${id}/rules/${rule.id}/reset`,
            undefined,
            a.token,
          );
          expect(reset.status).toBe(200);
        }
      }
      const original = await script(a.pid);
      const imported = await script(r.json.id);
      expect(imported).toEqual(EXPECTED);
      expect(original).toEqual(imported);
    });

    it('exports every field of rules exactly as the rules API shows them', async () => {
      const u = await s.client.fixture({
        method: 'POST',
        path: '/hooks/:id',
        statusCode: 202,
        contentType: 'text/plain',
      });
      await setPlan(u.id, 'pro');
      await s.client.rule(u.token, u.pid, u.eid, {
        name: 'everything',
        priority: -3,
        conditions: [
          { target: 'body_json', key: 'a.b', operator: 'less_than', value: 10 },
          { target: 'random', operator: 'less_than', value: '100' },
        ],
        response: {
          mode: 'hold_last',
          steps: [
            { statusCode: 503, body: 'x', headers: { 'retry-after': '1' }, delayMs: 5, delayMaxMs: 9, count: 3 },
            { statusCode: 200, fault: 'connection_reset' },
          ],
        },
        actions: [
          {
            type: 'http_request',
            url: 'https://example.com/{{request.params.id}}',
            method: 'PUT',
            headers: { 'x-a': 'b' },
            body: '{{request.body}}',
            applyResponse: true,
            timeoutMs: 1500,
            saveAs: 'hook',
            onError: 'stop',
          },
          { type: 'set_variable', name: 'n', value: '{{vars.hook.status}}' },
        ],
      });
      await s.client.rule(u.token, u.pid, u.eid, { name: 'actions only', active: false, actions: [] });
      const doc = await exportOf(u.token, u.pid);
      const rules = (await s.client.api('GET', `/api/projects/${u.pid}/endpoints/${u.eid}/rules`, undefined, u.token))
        .json;
      const strip = ({ id, endpointId, state, createdAt, updatedAt, ...rest }: Json) => rest;
      expect(doc.endpoints[0].rules).toEqual(rules.map(strip));
      expect(doc.endpoints[0]).toMatchObject({
        method: 'POST',
        path: '/hooks/:id',
        statusCode: 202,
        contentType: 'text/plain',
      });
      const again = await importDoc(u.token, doc);
      expect(again.status).toBe(201);
      expect((await exportOf(u.token, again.json.id)).endpoints).toEqual(doc.endpoints);
    });

    it('leaves storage out unless asked, and names the download', async () => {
      const u = await s.client.fixture({ method: 'GET', path: '/x' });
      const r = await s.client.api('GET', `/api/projects/${u.pid}/export`, undefined, u.token);
      expect(r.status).toBe(200);
      expect(r.json).not.toHaveProperty('storage');
      expect(r.headers.get('content-disposition')).toBe('attachment; filename="p.mockyard.json"');
      expect((await exportOf(u.token, u.pid, '?storage=true')).storage).toEqual({});
      expect((await exportOf(u.token, u.pid, '?storage=false')).storage).toBeUndefined();
      const bad = await s.client.api('GET', `/api/projects/${u.pid}/export?storage=yes`, undefined, u.token);
      expect(bad.status).toBe(400);
    });

    it('applies the plan limit on rules: 403 plan_limit_exceeded, nothing created', async () => {
      const a = await richProject();
      const doc = await exportOf(a.token, a.pid);
      const free = await s.client.user();
      const r = await importDoc(free.token, doc);
      expect([r.status, r.json.error.code]).toEqual([403, 'plan_limit_exceeded']);
      expect(r.json.error.message).toMatch(/3 rules per endpoint/);
      expect(await projectsOf(free.token)).toEqual([]);
      doc.endpoints[0].rules.pop();
      const fits = await importDoc(free.token, doc);
      expect(fits.status).toBe(201);
    });

    it('takes ?name= as the new name', async () => {
      const u = await s.client.fixture({ method: 'GET', path: '/x', responseBody: 'x' });
      const doc = await exportOf(u.token, u.pid);
      const r = await importDoc(u.token, doc, '?name=Copy%20of%20p');
      expect(r.status).toBe(201);
      expect(r.json.name).toBe('Copy of p');
      expect((await s.client.mock(r.json.id, 'GET', '/x')).text).toBe('x');
      const blank = await importDoc(u.token, doc, '?name=%20%20');
      expect([blank.status, blank.json.error.details[0].path]).toEqual([400, '/name']);
    });

    it('validates the document strictly, all or nothing', async () => {
      const u = await s.client.user();
      const base = () => ({
        mockyard: 1,
        exportedAt: '2024-01-01T00:00:00.000Z',
        project: { name: 'ok', fallbackUrl: null },
        endpoints: [
          {
            method: 'GET',
            path: '/a',
            statusCode: 200,
            responseBody: '',
            contentType: 'application/json',
            rules: [{ name: 'r', priority: 0, active: true, conditions: [], response: null, actions: [] }],
          },
        ],
      });
      const cases: [string, (d: ReturnType<typeof base> & Json) => void, string][] = [
        ['unknown top-level field', (d) => Object.assign(d, { extra: 1 }), '/extra'],
        ['wrong version', (d) => Object.assign(d, { mockyard: 2 }), '/mockyard'],
        ['missing endpoints', (d) => Object.assign(d, { endpoints: undefined }), '/endpoints'],
        ['endpoint id', (d) => Object.assign(d.endpoints[0], { id: 'x' }), '/endpoints/0/id'],
        [
          'rule state',
          (d) => Object.assign(d.endpoints[0].rules[0], { state: { step: 1 } }),
          '/endpoints/0/rules/0/state',
        ],
        ['bad method', (d) => Object.assign(d.endpoints[0], { method: 'FETCH' }), '/endpoints/0/method'],
        ['bad status', (d) => Object.assign(d.endpoints[0], { statusCode: 600 }), '/endpoints/0/statusCode'],
        [
          'bad regex',
          (d) =>
            Object.assign(d.endpoints[0].rules[0], {
              conditions: [{ target: 'body', operator: 'matches_regex', value: '(' }],
            }),
          '/endpoints/0/rules/0/conditions/0/value',
        ],
        [
          'keyless header condition',
          (d) => Object.assign(d.endpoints[0].rules[0], { conditions: [{ target: 'header', operator: 'exists' }] }),
          '/endpoints/0/rules/0/conditions/0/key',
        ],
        ['blank project name', (d) => Object.assign(d.project, { name: '  ' }), '/project/name'],
        ['bad fallbackUrl', (d) => Object.assign(d.project, { fallbackUrl: 'ftp://x' }), '/project/fallbackUrl'],
        ['duplicate route', (d) => d.endpoints.push({ ...d.endpoints[0], path: '/a/' }), '/endpoints/1/path'],
        ['storage of no endpoint', (d) => Object.assign(d, { storage: { 'GET /b': { k: 'v' } } }), '/storage/GET ~1b'],
        ['storage value not a string', (d) => Object.assign(d, { storage: { 'GET /a': { k: 1 } } }), '/storage'],
      ];
      for (const [what, change, path] of cases) {
        const doc = base() as ReturnType<typeof base> & Json;
        change(doc);
        const r = await importDoc(u.token, doc);
        expect([what, r.status, r.json.error.code]).toEqual([what, 400, 'validation_failed']);
        expect([what, r.json.error.details.some((d: { path: string }) => d.path.startsWith(path))]).toEqual([
          what,
          true,
        ]);
      }
      const broken = await importDoc(u.token, '{"mockyard":1,');
      expect([broken.status, broken.json.error.code]).toEqual([400, 'invalid_json']);
      expect(await projectsOf(u.token)).toEqual([]);

      const good = base() as ReturnType<typeof base> & Json;
      good.storage = { 'get /a': { k: 'v' } };
      const r = await importDoc(u.token, good);
      expect(r.status).toBe(201);
      const eps = await s.client.api('GET', `/api/projects/${r.json.id}/endpoints`, undefined, u.token);
      const stored = await s.client.api(
        'GET',
        `/api/projects/${r.json.id}/endpoints/${eps.json[0].id}/storage`,
        undefined,
        u.token,
      );
      expect(stored.json).toEqual({ k: 'v' });
    });

    it('is scoped to the caller', async () => {
      const owner = await s.client.fixture();
      const other = await s.client.user();
      const r = await s.client.api('GET', `/api/projects/${owner.pid}/export`, undefined, other.token);
      expect([r.status, r.json.error.code]).toEqual([404, 'not_found']);
      expect((await s.client.api('GET', `/api/projects/${owner.pid}/export`)).status).toBe(401);
      const doc = await exportOf(owner.token, owner.pid);
      expect((await importDoc('', doc)).status).toBe(401);
    });
  });
}
