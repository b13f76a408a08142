/**
 * Property-based fuzzing of every management route (docs/api.md, docs/api.md "Request log"): bodies derived from the
 * TypeBox schemas (valid ones, and ones with a field broken, dropped or added, any JSON, broken JSON,
 * other content types); odd ids and query strings in fuzz-ids.test.ts. Invariants:
 * - never a 5xx;
 * - every 4xx is the contract's error shape, with a code from the table and no stack trace or path;
 * - a 4xx writes nothing (the caller's whole tree is listed before and after and compared).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { METHODS } from '../../src/domain/model.js';
import {
  Credentials,
  EndpointBody,
  EndpointPatch,
  LoginBody,
  PasswordChange,
  PlanBody,
  ProjectBody,
  ProjectPatch,
  RuleBody,
  RulePatch,
} from '../../src/domain/schemas.js';
import { DIALECTS } from '../helpers/databases.js';
import { ADMIN_TOKEN, type HttpAnswer, startTestServer, type TestClient, type TestServer } from '../helpers/server.js';
import { bodies, expectErrorShape, type Overrides, text, treeOf, type WireBody } from './support.js';

// fewer runs on PostgreSQL: every run lists the caller's tree twice, and each query is a round trip
const runsFor = (dialect: string) => (dialect === 'sqlite' ? 25 : 10);

const segment = fc.oneof(
  fc.constantFrom('users', 'a', 'b', 'orders', 'caf%C3%A9', 'v1'),
  fc.constantFrom(':id', ':name'),
  fc.stringMatching(/^[a-z0-9_-]{1,8}$/),
);
const endpointPath = fc
  .tuple(fc.array(segment, { maxLength: 4 }), fc.boolean(), fc.boolean())
  .map(([segs, star, slash]) => `/${[...segs, ...(star ? ['*'] : [])].join('/')}${slash ? '/' : ''}`);
const anyCaseMethod = fc
  .tuple(fc.constantFrom(...METHODS), fc.boolean())
  .map(([m, lower]) => (lower ? m.toLowerCase() : m));

const condition = fc.oneof(
  fc.record({
    target: fc.constantFrom('header', 'query', 'body_json'),
    key: fc.constantFrom('x-tier', 'id', 'a.b', 'items.0.name'),
    operator: fc.constantFrom('equals', 'not_equals', 'contains', 'not_contains'),
    value: fc.oneof(text(12), fc.integer()),
  }),
  fc.record({
    target: fc.constantFrom('method', 'path', 'body'),
    operator: fc.constantFrom('exists', 'not_exists'),
  }),
  fc.record({
    target: fc.constantFrom('path', 'body'),
    operator: fc.constant('matches_regex'),
    value: fc.constantFrom('^/a', '(a+)+$', '[', '(?<n>x)', '\\d{2,}', '(a|aa)*b', '\\'),
  }),
  fc.record({
    target: fc.constant('random'),
    operator: fc.constant('less_than'),
    value: fc.integer({ min: -5, max: 105 }),
  }),
  fc.record({
    target: fc.constant('query'),
    key: fc.constant('n'),
    operator: fc.constant('less_than'),
    value: text(4),
  }),
);
const action = fc.oneof(
  fc.record(
    {
      type: fc.constantFrom('set_variable', 'store_variable'),
      name: fc.stringMatching(/^[a-z]{1,8}$/),
      value: fc.constantFrom(
        '{{request.query.id}}',
        '{{ vars.x }}',
        '{{$uuid}}',
        '{{',
        'plain',
        '{{request.body.a.b}}',
      ),
      onError: fc.constantFrom('continue', 'stop'),
    },
    { requiredKeys: ['type', 'name'] },
  ),
  fc.record(
    {
      type: fc.constant('http_request'),
      url: fc.constantFrom('http://127.0.0.1:1/x', 'https://example.test/{{request.path}}', 'ftp://x', 'not a url'),
      method: fc.constantFrom('GET', 'post', 'TRACE', 'bad method'),
      headers: fc.dictionary(fc.constantFrom('x-a', 'bad header', 'x-b'), text(8), { maxKeys: 2 }),
      timeoutMs: fc.integer({ min: 1, max: 10_000 }),
      applyResponse: fc.boolean(),
    },
    { requiredKeys: ['type', 'url'] },
  ),
);
const email = fc
  .tuple(fc.stringMatching(/^[a-z0-9]{1,10}$/), fc.constantFrom('example.test', 'x.y'))
  .map(([l, d]) => `fz-${l}@${d}`);

/** Overrides so that a good share of the "valid" bodies also pass the semantic checks. */
const endpointOverrides: Overrides = {
  method: fc.oneof({ weight: 4, arbitrary: anyCaseMethod }, { weight: 1, arbitrary: text(8) }),
  path: fc.oneof({ weight: 4, arbitrary: endpointPath }, { weight: 1, arbitrary: text(30) }),
};
const ruleOverrides: Overrides = {
  name: fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 20 }) },
    { weight: 1, arbitrary: text(8) },
  ),
  conditions: fc.array(condition, { maxLength: 3 }),
  actions: fc.array(action, { maxLength: 3 }),
};

for (const dialect of DIALECTS) {
  describe(`management API fuzz (${dialect})`, () => {
    let srv: TestServer;
    let c: TestClient;
    let token = '';
    let uid = '';
    let pid = '';
    let eid = '';
    let rid = '';
    let other: { token: string; email: string; password: string };
    const RUNS = runsFor(dialect);

    beforeAll(async () => {
      srv = await startTestServer(dialect);
      c = srv.client;
      const u = await c.user();
      token = u.token;
      uid = u.id;
      // business plan: room for rules, so rule creates reach the store
      const plan = await c.api('PATCH', `/api/admin/users/${u.id}`, { plan: 'business' }, ADMIN_TOKEN);
      expect(plan.status).toBe(200);
      pid = (await c.project(token, 'fuzz')).id;
      eid = (await c.endpoint(token, pid, { method: 'GET', path: '/fixed' })).id;
      rid = (await c.rule(token, pid, eid, { name: 'fixed', response: { steps: [{ statusCode: 201 }] } })).id;
      other = await c.user();
    });
    afterAll(async () => {
      await srv?.close();
    });

    const snapshot = () => treeOf(srv.running.store, uid);

    function send(method: string, path: string, wb: WireBody, auth: string | null = token): Promise<HttpAnswer> {
      const headers: Record<string, string> = {};
      if (wb.contentType !== undefined && wb.body !== undefined) headers['content-type'] = wb.contentType;
      // fetch sends no body with GET
      return c.api(method, path, method === 'GET' ? undefined : wb.body, auth, headers);
    }

    function checkAnswer(r: HttpAnswer, wb: WireBody): void {
      const ctx = `${wb.label}: ${String(wb.body).slice(0, 300)} → ${r.status} ${r.text.slice(0, 300)}`;
      expect(r.status, ctx).toBeLessThan(500);
      if (r.status >= 400) expectErrorShape(r);
      else expect([200, 201, 204], ctx).toContain(r.status);
    }

    /** A write route: any answer is < 500; a 4xx changes nothing; a created record is removed again. */
    async function fuzzWrite(
      method: string,
      path: () => string,
      // biome-ignore lint/suspicious/noExplicitAny: schemas are walked structurally
      schema: any,
      overrides: Overrides,
      cleanup?: (created: { id: string }) => string,
      /** run first: one body that must pass and one that must not, so both paths are always exercised */
      examples: { pass: unknown; fail: unknown } | null = null,
    ): Promise<{ ok: number; rejected: number }> {
      const seen = { ok: 0, rejected: 0 };
      await fc.assert(
        fc.asyncProperty(bodies(schema, overrides), async (wb) => {
          const before = await snapshot();
          const r = await send(method, path(), wb);
          checkAnswer(r, wb);
          if (r.status >= 400) {
            seen.rejected++;
            expect(await snapshot(), `${wb.label} ${wb.body} → ${r.status} wrote something`).toBe(before);
          } else {
            seen.ok++;
            if (r.status === 201 && cleanup) {
              const d = await c.api('DELETE', cleanup(r.json), undefined, token);
              expect(d.status).toBe(204);
            }
          }
        }),
        {
          numRuns: RUNS,
          examples: examples
            ? [
                [{ body: JSON.stringify(examples.pass), contentType: 'application/json', label: 'example-pass' }],
                [{ body: JSON.stringify(examples.fail), contentType: 'application/json', label: 'example-fail' }],
              ]
            : [],
        },
      );
      return seen;
    }

    test('POST /api/projects', async () => {
      const seen = await fuzzWrite(
        'POST',
        () => '/api/projects',
        ProjectBody,
        {},
        (p) => `/api/projects/${p.id}`,
      );
      expect(seen.ok + seen.rejected).toBe(RUNS);
    });

    test('PUT and PATCH /api/projects/:id', async () => {
      for (const m of ['PUT', 'PATCH']) await fuzzWrite(m, () => `/api/projects/${pid}`, ProjectPatch, {});
    });

    test('POST /api/projects/:projectId/endpoints', async () => {
      const seen = await fuzzWrite(
        'POST',
        () => `/api/projects/${pid}/endpoints`,
        EndpointBody,
        endpointOverrides,
        (e) => `/api/projects/${pid}/endpoints/${e.id}`,
        { pass: { method: 'post', path: '/users/:id/*' }, fail: { method: 'GET', path: 'no-slash' } },
      );
      // the overrides make sure the happy path is exercised too, not only rejections
      expect(seen.ok).toBeGreaterThan(0);
      expect(seen.rejected).toBeGreaterThan(0);
    });

    test('PUT and PATCH /api/projects/:projectId/endpoints/:id', async () => {
      for (const m of ['PUT', 'PATCH'])
        await fuzzWrite(m, () => `/api/projects/${pid}/endpoints/${eid}`, EndpointPatch, endpointOverrides);
    });

    test('POST …/rules', async () => {
      const seen = await fuzzWrite(
        'POST',
        () => `/api/projects/${pid}/endpoints/${eid}/rules`,
        RuleBody,
        ruleOverrides,
        (r) => `/api/projects/${pid}/endpoints/${eid}/rules/${r.id}`,
        {
          pass: { name: 'ok', conditions: [{ target: 'query', key: 'id', operator: 'equals', value: 1 }] },
          fail: { name: 'bad', conditions: [{ target: 'body', operator: 'matches_regex', value: '(' }] },
        },
      );
      expect(seen.ok).toBeGreaterThan(0);
      expect(seen.rejected).toBeGreaterThan(0);
    });

    test('PUT and PATCH …/rules/:ruleId', async () => {
      for (const m of ['PUT', 'PATCH'])
        await fuzzWrite(m, () => `/api/projects/${pid}/endpoints/${eid}/rules/${rid}`, RulePatch, ruleOverrides);
    });

    test('POST /api/auth/register: a rejected registration creates no account', async () => {
      const taken = new Set<string>();
      await fc.assert(
        fc.asyncProperty(bodies(Credentials, { email }), async (wb) => {
          const r = await send('POST', '/api/auth/register', wb, null);
          checkAnswer(r, wb);
          let sent: { email?: unknown } = {};
          try {
            sent = JSON.parse(wb.body ?? '');
          } catch {
            /* not JSON */
          }
          const e = typeof sent?.email === 'string' ? sent.email.trim().toLowerCase() : null;
          if (r.status === 201) {
            expect(r.json.token).toBeTypeOf('string');
            expect(JSON.stringify(r.json)).not.toMatch(/password|scrypt/i);
            if (e) taken.add(e);
          } else if (e && /^fz-[a-z0-9]+@[a-z.]+$/.test(e) && !taken.has(e) && r.status !== 409) {
            const again = await c.api('POST', '/api/auth/register', { email: e, password: 'correct horse' });
            expect(again.status, `${wb.body} → ${r.status} created the account`).toBe(201);
            taken.add(e);
          }
        }),
        { numRuns: RUNS },
      );
    });

    test('POST /api/auth/login', async () => {
      const known = fc.constant(other.email);
      await fc.assert(
        fc.asyncProperty(bodies(LoginBody, { email: fc.oneof(known, email) }), async (wb) => {
          const r = await send('POST', '/api/auth/login', wb, null);
          checkAnswer(r, wb);
          expect(r.status).not.toBe(200); // nobody guesses the password
        }),
        { numRuns: RUNS },
      );
    });

    test('PUT /api/auth/password: a rejected change keeps the password and the sessions', async () => {
      const u = await c.user();
      let password = u.password;
      const login = async () =>
        (await c.api('POST', '/api/auth/login', { email: u.email, password })).json.token as string;
      let second = await login();
      await fc.assert(
        fc.asyncProperty(
          bodies(PasswordChange, { oldPassword: fc.oneof(fc.constant(u.password), text(12)) }),
          async (wb) => {
            const r = await send('PUT', '/api/auth/password', wb, u.token);
            checkAnswer(r, wb);
            if (r.status === 204) {
              password = JSON.parse(wb.body ?? '{}').newPassword;
              // the other session is revoked by a change (auth.test.ts checks it); sign in again
              expect((await c.api('GET', '/api/auth/me', undefined, second)).status).toBe(401);
              second = await login();
            } else {
              expect((await c.api('GET', '/api/auth/me', undefined, second)).status).toBe(200);
            }
          },
        ),
        { numRuns: Math.ceil(RUNS / 2) },
      );
      const last = await c.api('POST', '/api/auth/login', { email: u.email, password });
      expect(last.status).toBe(200);
    });

    test('PATCH /api/admin/users/:userId', async () => {
      await fc.assert(
        fc.asyncProperty(bodies(PlanBody), async (wb) => {
          const r = await send('PATCH', `/api/admin/users/${other.email}`, wb, ADMIN_TOKEN);
          checkAnswer(r, wb);
          expect(r.status).not.toBe(200); // an email is not a user id
        }),
        { numRuns: RUNS },
      );
    });

    test('bodyless routes (reset, storage clear, logout) take any body without a 5xx', async () => {
      const routes: [string, string][] = [
        ['POST', `/api/projects/${pid}/endpoints/${eid}/rules/${rid}/reset`],
        ['DELETE', `/api/projects/${pid}/endpoints/${eid}/storage`],
        ['GET', `/api/projects/${pid}/requests`],
      ];
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...routes), bodies(PlanBody), async ([m, p], wb) => {
          checkAnswer(await send(m, p, wb), wb);
        }),
        { numRuns: RUNS },
      );
    });
  });
}
