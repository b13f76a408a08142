/**
 * Tenant isolation (docs/api.md "Conventions": "a record of another user" is a 404, never a 403), route by
 * route: user B calls every project, endpoint, rule, storage and request-log route with user A's
 * ids and always gets 404 not_found, the same answer as for an id that does not exist; A's data
 * is unchanged afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { expectError } from '../helpers/expect.js';
import { type Populated, populate, rowsOf } from '../helpers/populate.js';
import { startTestServer, type TestClient, type TestServer } from '../helpers/server.js';

interface Ids {
  pid: string;
  eid: string;
  rid: string;
}

type Route = [method: string, path: (x: Ids) => string, body?: unknown];

const P = (x: Ids) => `/api/projects/${x.pid}`;
const E = (x: Ids) => `${P(x)}/endpoints/${x.eid}`;
const R = (x: Ids) => `${E(x)}/rules/${x.rid}`;

/** Every route that names a project, endpoint or rule, with a body that would be valid. */
const ROUTES: Route[] = [
  ['GET', P],
  ['PUT', P, { name: 'taken over' }],
  ['PATCH', P, { name: 'taken over' }],
  ['DELETE', P],
  ['GET', (x) => `${P(x)}/endpoints`],
  ['POST', (x) => `${P(x)}/endpoints`, { method: 'GET', path: '/planted' }],
  ['GET', E],
  ['PUT', E, { statusCode: 500, responseBody: 'hijacked' }],
  ['PATCH', E, { statusCode: 500, responseBody: 'hijacked' }],
  ['DELETE', E],
  ['GET', (x) => `${E(x)}/storage`],
  ['DELETE', (x) => `${E(x)}/storage`],
  ['GET', (x) => `${E(x)}/sessions`],
  ['GET', (x) => `${E(x)}/rules`],
  ['POST', (x) => `${E(x)}/rules`, { name: 'planted', response: { steps: [{ statusCode: 500 }] } }],
  ['GET', R],
  ['PUT', R, { active: false, name: 'hijacked' }],
  ['PATCH', R, { active: false, name: 'hijacked' }],
  ['DELETE', R],
  ['POST', (x) => `${R(x)}/reset`],
  ['GET', (x) => `${P(x)}/requests`],
  ['GET', (x) => `${P(x)}/requests?limit=500`],
  ['GET', (x) => `${P(x)}/requests/stream`],
];

describe.each(DIALECTS)('tenant isolation on %s', (dialect) => {
  let s: TestServer;
  let c: TestClient;
  let a: Populated;
  let b: Populated;
  beforeAll(async () => {
    s = await startTestServer(dialect);
    c = s.client;
    a = await populate(c);
    // a second mock hit: A's rule is at step 1 of its sequence, so a reset would show
    expect((await c.mock(a.pid, 'GET', '/items/8')).status).toBe(202);
    b = await populate(c);
  });
  afterAll(async () => {
    await s?.close();
  });

  /** Everything A can see of A's records, through the API. */
  async function snapshot(x: Populated) {
    const get = async (p: string) => {
      const r = await c.api('GET', p, undefined, x.token);
      expect(r.status, p).toBe(200);
      return r.json;
    };
    return {
      projects: await get('/api/projects'),
      project: await get(P(x)),
      endpoints: await get(`${P(x)}/endpoints`),
      endpoint: await get(E(x)),
      rules: await get(`${E(x)}/rules`),
      rule: await get(R(x)),
      storage: await get(`${E(x)}/storage`),
      requests: await get(`${P(x)}/requests`),
      rows: await rowsOf(s.running.store.db, x.pid, [x.eid], [x.rid]),
    };
  }

  // Which of A's ids B puts in the URL: all of A's, or B's own project (and endpoint) with A's
  // endpoint (and rule) below it.
  const variants: [string, (a: Ids, b: Ids) => Ids][] = [
    ['A’s ids', (a) => a],
    ['B’s project, A’s endpoint and rule', (a, b) => ({ pid: b.pid, eid: a.eid, rid: a.rid })],
    ['B’s project and endpoint, A’s rule', (a, b) => ({ pid: b.pid, eid: b.eid, rid: a.rid })],
    ['A’s project, B’s endpoint and rule', (a, b) => ({ pid: a.pid, eid: b.eid, rid: b.rid })],
  ];

  it.each(variants)('B gets 404 not_found on every route with %s, and A’s data is unchanged', async (_n, pick) => {
    const beforeA = await snapshot(a);
    const beforeB = await snapshot(b);
    const ids = pick(a, b);
    // the same URL with A's ids replaced by ids that exist nowhere
    const ghost = pick({ pid: 'no-such-project', eid: 'no-such-endpoint', rid: 'no-such-rule' }, b);
    let checked = 0;
    for (const [method, path, body] of ROUTES) {
      // a URL made of B's ids only names B's own records: not a case here
      const url = path(ids);
      if (![a.pid, a.eid, a.rid].some((id) => url.includes(id))) continue;
      checked++;
      const r = await c.api(method, path(ids), body, b.token);
      expectError(r, 404, 'not_found');
      // the same answer as for a record that does not exist: existence is not leaked
      const missing = await c.api(method, path(ghost), body, b.token);
      expect({ route: `${method} ${path(ids)}`, body: r.json }).toEqual({
        route: `${method} ${path(ids)}`,
        body: missing.json,
      });
    }
    expect(checked).toBeGreaterThanOrEqual(5); // the rule routes at least
    expect(await snapshot(a)).toEqual(beforeA);
    expect(await snapshot(b)).toEqual(beforeB);
  });

  it('A’s own token still works on every route (the table is not trivially 404)', async () => {
    const x = await populate(c);
    for (const [method, path, body] of ROUTES) {
      if (method === 'DELETE' || path(x).endsWith('/stream')) continue;
      const r = await c.api(method, path(x), body, x.token);
      expect({ route: `${method} ${path(x)}`, status: r.status }).toMatchObject({
        status: method === 'POST' && !path(x).endsWith('/reset') ? 201 : 200,
      });
    }
  });

  it('lists show only the caller’s records, and the mock of A still answers as before', async () => {
    const list = await c.api('GET', '/api/projects', undefined, b.token);
    expect(list.json.map((p: { id: string }) => p.id)).toEqual([b.pid]);
    // A's sequence was not reset by B: the third hit loops back to the first step
    const hit = await c.mock(a.pid, 'GET', '/items/9');
    expect(hit).toMatchObject({ status: 201, text: 'first' });
    const storage = await c.api('GET', `${E(a)}/storage`, undefined, a.token);
    expect(storage.json).toEqual({ last: '9' });
  });
});
