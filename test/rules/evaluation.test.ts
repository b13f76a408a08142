/**
 * Rule evaluation over HTTP (docs/api.md "Rules", docs/api.md "Mock traffic"): conditions of every target, AND, active
 * flag, rules without a response, sequencing (serial, concurrent, across a restart), delays, step
 * headers, templates, linear-time regex, mock sessions, seeds and faults.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, freshDatabase } from '../helpers/databases.js';
import { type HttpAnswer, request, spawnServer, startTestServer, type TestServer } from '../helpers/server.js';

const HIT = 222; // status of the rule under test; endpoint defaults answer 200
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type MockOpts = { headers?: Record<string, string>; body?: string; query?: string; timeoutMs?: number };

const countBy = (xs: (string | number)[]) => {
  const out: Record<string, number> = {};
  for (const x of xs) out[x] = (out[x] ?? 0) + 1;
  return out;
};

/** A raw node:http GET (no keep-alive) that reports how the exchange ended. */
function rawGet(url: string): Promise<{ status?: number; body?: string; error?: NodeJS.ErrnoException }> {
  return new Promise((resolve) => {
    let status: number | undefined;
    const req = http.get(url, { agent: false }, (res) => {
      status = res.statusCode;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status, body: Buffer.concat(chunks).toString() }));
      res.on('error', (error) => resolve({ status, error }));
    });
    req.on('error', (error) => resolve({ status, error }));
    req.setTimeout(5000, () => req.destroy(new Error('client timeout')));
  });
}

for (const dialect of DIALECTS) {
  describe(`rule evaluation (${dialect})`, () => {
    let server: TestServer;
    const client = () => server.client;

    beforeAll(async () => {
      server = await startTestServer(dialect);
    });
    afterAll(async () => {
      await server?.close();
    });

    const rulePath = (f: { pid: string; eid: string }, rid: string) =>
      `/api/projects/${f.pid}/endpoints/${f.eid}/rules/${rid}`;

    async function statuses(f: { pid: string; endpoint: { method: string; path: string } }, n: number, opts = {}) {
      const out: number[] = [];
      for (let i = 0; i < n; i++)
        out.push((await client().mock(f.pid, f.endpoint.method, f.endpoint.path, opts)).status);
      return out;
    }

    async function sequenceFixture(response: Record<string, unknown>, path = '/seq') {
      const f = await client().fixture({ method: 'GET', path, statusCode: 418 });
      const rule = await client().rule(f.token, f.pid, f.eid, { name: 'seq', response });
      return { ...f, rule };
    }

    it('conditions of every target and operator, with absent values', async () => {
      const f = await client().fixture({ method: 'POST', path: '/c/:id', responseBody: 'default' });
      const rule = await client().rule(f.token, f.pid, f.eid, { response: { steps: [{ statusCode: HIT }] } });
      const json = (body: string): MockOpts => ({ body, headers: { 'content-type': 'application/json' } });
      const hdr = (v: string): MockOpts => ({ headers: { 'x-tier': v } });
      const none: MockOpts = {};
      // [condition, [label, path, request, expected match]…]
      type Case = [Record<string, unknown>, [string, string, MockOpts, boolean][]];
      const C = (
        target: string,
        key: string | undefined,
        operator: string,
        value: string | undefined,
        reqs: [string, MockOpts, boolean][],
        path = '/c/7',
      ): Case => [{ target, key, operator, value }, reqs.map(([l, o, e]) => [l, path, o, e])];
      const table: Case[] = [
        C('method', undefined, 'equals', 'POST', [['POST', none, true]]),
        C('method', undefined, 'equals', 'post', [['POST (case-sensitive)', none, false]]),
        C('method', undefined, 'not_equals', 'GET', [['POST', none, true]]),
        C('method', undefined, 'matches_regex', '^P(OST|UT)$', [['POST', none, true]]),
        C('method', undefined, 'less_than', '5', [['a method is no number', none, false]]),
        C('path', undefined, 'equals', '/c/7', [
          ['/c/7', { query: 'a=1' }, true],
          ['/c/7 with query (query is not part of the path)', { query: 'x=/c/8' }, true],
        ]),
        C('path', undefined, 'equals', '/c/7', [['/c/8', none, false]], '/c/8'),
        C('path', undefined, 'contains', '/c/', [['/c/7', none, true]]),
        C('path', undefined, 'not_contains', '/c/', [['/c/7', none, false]]),
        C('header', 'X-Tier', 'equals', 'vip', [
          ['vip (key case-insensitive)', hdr('vip'), true],
          ['VIP', hdr('VIP'), false],
          ['absent', none, false],
        ]),
        C('header', 'x-tier', 'not_equals', 'vip', [
          ['gold', hdr('gold'), true],
          ['vip', hdr('vip'), false],
          ['absent', none, true],
        ]),
        C('header', 'x-tier', 'contains', 'ip', [
          ['vip', hdr('vip'), true],
          ['absent', none, false],
        ]),
        C('header', 'x-tier', 'not_contains', 'ip', [
          ['gold', hdr('gold'), true],
          ['vip', hdr('vip'), false],
          ['absent', none, true],
        ]),
        C('header', 'x-tier', 'exists', undefined, [
          ['present', hdr(''), true],
          ['absent', none, false],
        ]),
        C('header', 'x-tier', 'not_exists', undefined, [
          ['present', hdr('a'), false],
          ['absent', none, true],
        ]),
        C('header', 'x-tier', 'less_than', '10', [
          ['9', hdr('9'), true],
          ['10', hdr('10'), false],
          ['-2.5', hdr('-2.5'), true],
          ['100 (numeric, not text, comparison)', hdr('100'), false],
          ['abc', hdr('abc'), false],
          ['absent', none, false],
        ]),
        C('query', 'q', 'equals', 'a b', [
          ['q=a%20b', { query: 'q=a%20b' }, true],
          ['q=a+b', { query: 'q=a+b' }, true],
          ['first value wins', { query: 'q=a%20b&q=z' }, true],
          ['first value is another', { query: 'q=z&q=a%20b' }, false],
          ['absent', { query: 'other=a%20b' }, false],
        ]),
        C('query', 'q', 'matches_regex', '^[0-9]+$', [
          ['q=123', { query: 'q=123' }, true],
          ['q=12a', { query: 'q=12a' }, false],
          ['absent', none, false],
        ]),
        C('query', 'n', 'less_than', '100', [
          ['n=20', { query: 'n=20' }, true],
          ['n=1000', { query: 'n=1000' }, false],
        ]),
        C('body', undefined, 'equals', '{"a":1}', [
          ['raw JSON text', json('{"a":1}'), true],
          ['other spacing', json('{"a": 1}'), false],
        ]),
        C('body', undefined, 'contains', 'ell', [
          ['hello', { body: 'hello' }, true],
          ['HELLO', { body: 'HELLO' }, false],
        ]),
        C('body', undefined, 'matches_regex', '^h.*o$', [
          ['hello', { body: 'hello' }, true],
          ['hello!', { body: 'hello!' }, false],
        ]),
        C('body_json', 'user.name', 'equals', 'ann', [
          ['ann', json('{"user":{"name":"ann"}}'), true],
          ['bob', json('{"user":{"name":"bob"}}'), false],
          ['missing path', json('{"user":{}}'), false],
          ['not JSON', { body: 'ann' }, false],
        ]),
        C('body_json', 'user.name', 'not_exists', undefined, [
          ['missing path', json('{"user":{}}'), true],
          ['not JSON', { body: '{oops' }, true],
          ['present', json('{"user":{"name":"x"}}'), false],
        ]),
        C('body_json', 'items.1.id', 'equals', '42', [
          ['number as JSON text', json('{"items":[{"id":1},{"id":42}]}'), true],
          ['string "42"', json('{"items":[{"id":1},{"id":"42"}]}'), true],
          ['index out of range', json('{"items":[{"id":42}]}'), false],
        ]),
        C('body_json', 'o', 'equals', '{"a":[1,true,null]}', [
          ['object as compact JSON', json('{"o": {"a": [1, true, null]}}'), true],
        ]),
        C('body_json', 'n', 'less_than', '0.5', [
          ['0.25', json('{"n":0.25}'), true],
          ['true (not a number)', json('{"n":true}'), false],
        ]),
        C('random', undefined, 'less_than', '100', [['always', none, true]]),
        C('random', undefined, 'less_than', '0', [['never', none, false]]),
      ];
      const wrong: string[] = [];
      for (const [cond, reqs] of table) {
        const up = await client().api('PUT', rulePath(f, rule.id), { conditions: [cond] }, f.token);
        expect(up.status, JSON.stringify(cond)).toBe(200);
        for (const [label, path, opts, expected] of reqs) {
          const r = await client().mock(f.pid, 'POST', path, opts);
          const got = r.status === HIT ? true : r.status === 200 ? false : r.status;
          if (got !== expected) wrong.push(`${JSON.stringify(cond)} with ${label}: expected ${expected}, got ${got}`);
        }
      }
      expect(wrong).toEqual([]);
    });

    it('random less_than 50 matches some requests and not others', async () => {
      const f = await client().fixture({ method: 'GET', path: '/coin' });
      await client().rule(f.token, f.pid, f.eid, {
        conditions: [{ target: 'random', operator: 'less_than', value: 50 }],
        response: { steps: [{ statusCode: HIT }] },
      });
      const st = countBy(await statuses(f, 120));
      // P(fewer than 20 of 120 on either side) is below 1e-13
      expect(st[HIT]).toBeGreaterThan(20);
      expect(st[200]).toBeGreaterThan(20);
    });

    it('combines conditions with AND; an empty list matches every request', async () => {
      const f = await client().fixture({ method: 'GET', path: '/and' });
      const rule = await client().rule(f.token, f.pid, f.eid, {
        conditions: [
          { target: 'header', key: 'x-a', operator: 'equals', value: '1' },
          { target: 'query', key: 'b', operator: 'equals', value: '2' },
        ],
        response: { steps: [{ statusCode: HIT }] },
      });
      const s = async (opts: MockOpts) => (await client().mock(f.pid, 'GET', '/and', opts)).status;
      expect(await s({ headers: { 'x-a': '1' }, query: 'b=2' })).toBe(HIT);
      expect(await s({ headers: { 'x-a': '1' }, query: 'b=3' })).toBe(200);
      expect(await s({ query: 'b=2' })).toBe(200);
      expect(await s({})).toBe(200);
      await client().api('PATCH', rulePath(f, rule.id), { conditions: [] }, f.token);
      expect(await s({})).toBe(HIT);
    });

    it('skips inactive rules (their actions too) and applies them again once activated', async () => {
      const f = await client().fixture({ method: 'GET', path: '/active', responseBody: 'default {{vars.v}}' });
      const rule = await client().rule(f.token, f.pid, f.eid, {
        active: false,
        actions: [{ type: 'set_variable', name: 'v', value: 'set' }],
        response: { steps: [{ statusCode: HIT, body: 'rule' }] },
      });
      await client().rule(f.token, f.pid, f.eid, {
        name: 'later',
        priority: 5,
        conditions: [{ target: 'query', key: 'later', operator: 'exists' }],
        response: { steps: [{ statusCode: 201, body: 'later {{vars.v}}' }] },
      });
      const get = async (query?: string) => {
        const r = await client().mock(f.pid, 'GET', '/active', { query });
        return [r.status, r.text];
      };
      expect(await get()).toEqual([200, 'default ']);
      expect(await get('later')).toEqual([201, 'later ']);
      await client().api('PATCH', rulePath(f, rule.id), { active: true }, f.token);
      expect(await get()).toEqual([HIT, 'rule']);
      await client().api('PATCH', rulePath(f, rule.id), { active: false }, f.token);
      expect(await get()).toEqual([200, 'default ']);
    });

    it('a rule without a response runs its actions and evaluation goes on to later rules and the default', async () => {
      const f = await client().fixture({ method: 'GET', path: '/chain', responseBody: 'default {{vars.who}}' });
      await client().rule(f.token, f.pid, f.eid, {
        name: 'setter',
        actions: [{ type: 'set_variable', name: 'who', value: 'hi {{request.query.name}}' }],
      });
      await client().rule(f.token, f.pid, f.eid, {
        name: 'answers',
        priority: 1,
        conditions: [{ target: 'query', key: 'rule', operator: 'exists' }],
        response: { steps: [{ statusCode: 201, body: 'rule {{vars.who}}' }] },
      });
      await client().rule(f.token, f.pid, f.eid, {
        name: 'reached only without an answer before',
        priority: 2,
        actions: [{ type: 'set_variable', name: 'who', value: '{{vars.who}}!' }],
      });
      const text = async (query: string) => (await client().mock(f.pid, 'GET', '/chain', { query })).text;
      expect(await text('name=ann&rule')).toBe('rule hi ann');
      expect(await text('name=bob')).toBe('default hi bob!');
    });

    it('sequence example: hold_last [201, 200] → 201 once, then 200 always (request by request)', async () => {
      const f = await sequenceFixture({ mode: 'hold_last', steps: [{ statusCode: 201 }, { statusCode: 200 }] });
      const expected = [201, 200, 200, 200, 200];
      for (const [i, status] of expected.entries()) {
        expect((await client().mock(f.pid, 'GET', '/seq')).status, `request ${i + 1}`).toBe(status);
        const state = (await client().api('GET', rulePath(f, f.rule.id), undefined, f.token)).json.state;
        expect(state.step, `step after request ${i + 1}`).toBe(1);
      }
    });

    it('sequence example: loop [500×2, 200×1] → 500, 500, 200 and repeat (request by request, with state)', async () => {
      const f = await sequenceFixture({
        mode: 'loop',
        steps: [
          { statusCode: 500, count: 2 },
          { statusCode: 200, count: 1 },
        ],
      });
      const expected: [number, { step: number; served: number }][] = [
        [500, { step: 0, served: 1 }],
        [500, { step: 1, served: 0 }],
        [200, { step: 0, served: 0 }],
        [500, { step: 0, served: 1 }],
        [500, { step: 1, served: 0 }],
        [200, { step: 0, served: 0 }],
        [500, { step: 0, served: 1 }],
      ];
      for (const [i, [status, state]] of expected.entries()) {
        expect((await client().mock(f.pid, 'GET', '/seq')).status, `request ${i + 1}`).toBe(status);
        const got = (await client().api('GET', rulePath(f, f.rule.id), undefined, f.token)).json.state;
        expect(got, `state after request ${i + 1}`).toEqual(state);
      }
    });

    it('sequences are exact under concurrency: 300 at once on loop [500×2, 200×1] → 200 × 500, 100 × 200', async () => {
      const f = await sequenceFixture({
        mode: 'loop',
        steps: [
          { statusCode: 500, count: 2 },
          { statusCode: 200, count: 1 },
        ],
      });
      const st = await Promise.all(
        Array.from({ length: 300 }, () => client().mock(f.pid, 'GET', '/seq', { timeoutMs: 60_000 })),
      );
      expect(countBy(st.map((r) => r.status))).toEqual({ 500: 200, 200: 100 });
      expect(await statuses(f, 3)).toEqual([500, 500, 200]); // 300 is a whole number of passes
    });

    it('sequences are exact under concurrency: 300 at once on hold_last [201×2, 202×1, 200] → 2, 1, 297', async () => {
      const f = await sequenceFixture({
        mode: 'hold_last',
        steps: [{ statusCode: 201, count: 2 }, { statusCode: 202 }, { statusCode: 200 }],
      });
      const st = await Promise.all(
        Array.from({ length: 300 }, () => client().mock(f.pid, 'GET', '/seq', { timeoutMs: 60_000 })),
      );
      expect(countBy(st.map((r) => r.status))).toEqual({ 201: 2, 202: 1, 200: 297 });
    });

    it('the sequence position survives a restart of the process', { timeout: 90_000 }, async () => {
      const db = await freshDatabase(dialect);
      let child = await spawnServer(db.url);
      try {
        const f = await child.client.fixture({ method: 'GET', path: '/restart', statusCode: 418 });
        const rule = await child.client.rule(f.token, f.pid, f.eid, {
          response: { mode: 'loop', steps: [{ statusCode: 500, count: 2 }, { statusCode: 200 }] },
        });
        expect((await child.client.mock(f.pid, 'GET', '/restart')).status).toBe(500);
        expect(await child.stop()).toBe(0);

        child = await spawnServer(db.url);
        const got: number[] = [];
        for (let i = 0; i < 3; i++) got.push((await child.client.mock(f.pid, 'GET', '/restart')).status);
        expect(got).toEqual([500, 200, 500]);
        const state = (await child.client.api('GET', rulePath(f, rule.id), undefined, f.token)).json.state;
        expect(state).toEqual({ step: 0, served: 1 }); // the login also survived
      } finally {
        await child.stop();
        await db.drop();
      }
    });

    it('delays: at least delayMs; jitter stays within [delayMs, delayMaxMs] and varies; delayMaxMs below delayMs → delayMs', async () => {
      const f = await client().fixture({ method: 'GET', path: '/slow' });
      const rule = await client().rule(f.token, f.pid, f.eid, {
        response: { steps: [{ statusCode: 200, delayMs: 300 }] },
      });
      for (let i = 0; i < 2; i++) expect((await client().mock(f.pid, 'GET', '/slow')).ms).toBeGreaterThanOrEqual(299);

      await client().api(
        'PATCH',
        rulePath(f, rule.id),
        { response: { steps: [{ statusCode: 200, delayMs: 250, delayMaxMs: 10 }] } },
        f.token,
      );
      expect((await client().mock(f.pid, 'GET', '/slow')).ms).toBeGreaterThanOrEqual(249);

      await client().api(
        'PATCH',
        rulePath(f, rule.id),
        { response: { steps: [{ statusCode: 200, delayMs: 100, delayMaxMs: 400 }] } },
        f.token,
      );
      const ms = await Promise.all(
        Array.from({ length: 10 }, async () => (await client().mock(f.pid, 'GET', '/slow')).ms),
      );
      for (const m of ms) expect(m).toBeGreaterThanOrEqual(99);
      for (const m of ms) expect(m).toBeLessThan(3000); // 400 ms plus a generous allowance for a busy machine
      expect(Math.max(...ms) - Math.min(...ms)).toBeGreaterThan(20);
    });

    it('a delay does not block the server: /healthz answers while a 1 s delay runs', async () => {
      const f = await client().fixture({ method: 'GET', path: '/wait' });
      await client().rule(f.token, f.pid, f.eid, { response: { steps: [{ statusCode: 200, delayMs: 1000 }] } });
      const order: string[] = [];
      const slow = client()
        .mock(f.pid, 'GET', '/wait')
        .then((r) => {
          order.push('mock');
          return r;
        });
      await new Promise((r) => setTimeout(r, 100));
      const health = await request(`${server.running.url}/healthz`);
      order.push('healthz');
      const r = await slow;
      expect(health.status).toBe(200);
      expect(order).toEqual(['healthz', 'mock']);
      expect(r.ms).toBeGreaterThanOrEqual(999);
    });

    it('sends step headers (templated) and picks the content type from the step, else the endpoint', async () => {
      const f = await client().fixture({ method: 'GET', path: '/hdr', contentType: 'application/xml' });
      await client().rule(f.token, f.pid, f.eid, {
        response: {
          steps: [
            { statusCode: 200, body: '<a/>', headers: { 'X-Custom': 'yes', 'X-Echo': 'e={{request.query.e}}' } },
            { statusCode: 201, body: 'plain', headers: { 'content-type': 'text/plain; charset=utf-8' } },
            { statusCode: 202, body: '{}', headers: { 'Content-Type': '{{request.query.ct}}' } },
          ],
        },
      });
      const a = await client().mock(f.pid, 'GET', '/hdr', { query: 'e=hello' });
      expect(a.status).toBe(200);
      expect(a.headers.get('x-custom')).toBe('yes');
      expect(a.headers.get('x-echo')).toBe('e=hello');
      expect(a.headers.get('content-type')).toBe('application/xml');
      expect(a.headers.get('access-control-allow-origin')).toBe('*');
      const b = await client().mock(f.pid, 'GET', '/hdr');
      expect([b.status, b.text, b.headers.get('content-type')]).toEqual([201, 'plain', 'text/plain; charset=utf-8']);
      const c = await client().mock(f.pid, 'GET', '/hdr', { query: 'ct=application/vnd.x%2Bjson' });
      expect([c.status, c.headers.get('content-type')]).toEqual([202, 'application/vnd.x+json']);
    });

    it('renders templates from the request, generated values, and empty for unknown ones (never code)', async () => {
      const f = await client().fixture({
        method: 'POST',
        path: '/tpl/:id',
        responseBody: 'default q={{request.query.q}}',
      });
      const rule = await client().rule(f.token, f.pid, f.eid, {
        conditions: [{ target: 'query', key: 'q', operator: 'not_exists' }],
        response: {
          steps: [
            {
              statusCode: 200,
              body:
                'm={{request.method}} p={{ request.path }} id={{request.params.id}} h={{request.headers.x-foo}} ' +
                'n={{request.body.user.name}} i={{request.body.items.1}} raw={{request.body}} ' +
                'none=[{{vars.nope}}{{endpoint.nope}}{{request.query.nope}}{{request.body.no.such}}{{whatever}}] ' +
                'code=[{{7*7}}{{constructor.constructor}}{{process.env.HOME}}]',
            },
          ],
        },
      });
      const body = '{"user":{"name":"bob"},"items":["a","b"]}';
      const r = await client().mock(f.pid, 'POST', '/tpl/77', {
        query: 'z=1',
        headers: { 'x-foo': 'bar', 'content-type': 'application/json' },
        body,
      });
      expect(r.text).toBe(`m=POST p=/tpl/77 id=77 h=bar n=bob i=b raw=${body} none=[] code=[]`);
      expect((await client().mock(f.pid, 'POST', '/tpl/1', { query: 'q=x%26y' })).text).toBe('default q=x&y');

      await client().api(
        'PATCH',
        rulePath(f, rule.id),
        { response: { steps: [{ statusCode: 200, body: '{{$uuid}}|{{$timestamp}}|{{$isoDate}}' }] } },
        f.token,
      );
      const before = Date.now();
      const [u1, ts, iso] = (await client().mock(f.pid, 'POST', '/tpl/1')).text.split('|');
      const [u2] = (await client().mock(f.pid, 'POST', '/tpl/1')).text.split('|');
      expect(u1).toMatch(UUID);
      expect(u2).toMatch(UUID);
      expect(u1).not.toBe(u2);
      expect(ts).toMatch(/^\d{13}$/);
      expect(Math.abs(Number(ts) - before)).toBeLessThan(60_000);
      expect(Math.abs(Date.parse(iso) - before)).toBeLessThan(60_000);
    });

    it('a catastrophic regex ^(a+)+$ on 30,000 characters answers quickly while /healthz keeps answering', async () => {
      const evil = `${'a'.repeat(30_000)}!`;
      for (const [target, key, opts] of [
        ['header', 'x-evil', { headers: { 'x-evil': evil } }],
        ['body', undefined, { body: evil, headers: { 'content-type': 'text/plain' } }],
      ] as const) {
        const f = await client().fixture({ method: 'POST', path: '/redos' });
        const c = await client().api(
          'POST',
          `/api/projects/${f.pid}/endpoints/${f.eid}/rules`,
          {
            name: 'redos',
            conditions: [{ target, key, operator: 'matches_regex', value: '^(a+)+$' }],
            response: { steps: [{ statusCode: HIT }] },
          },
          f.token,
        );
        if (c.status === 400) continue; // rejecting the pattern at save is also allowed
        expect(c.status).toBe(201);
        const order: string[] = [];
        const pending = client()
          .mock(f.pid, 'POST', '/redos', { ...opts, timeoutMs: 5000 })
          .then((r) => {
            order.push('mock');
            return r;
          });
        const health = await request(`${server.running.url}/healthz`, { timeoutMs: 5000 });
        order.push('healthz');
        const r = await pending;
        expect(health.status).toBe(200);
        expect(r.status).toBe(200); // "aaa…!" does not match
        expect(r.ms).toBeLessThan(2000);
        // matching "aaa…a" (no "!") does match, so the condition really ran
        const yes = await client().mock(f.pid, 'POST', '/redos', {
          ...(target === 'header' ? { headers: { 'x-evil': evil.slice(0, -1) } } : { body: evil.slice(0, -1) }),
        });
        expect(yes.status).toBe(HIT);
        expect(order).toHaveLength(2);
      }
    });

    describe('X-Mockyard-Session', () => {
      it('keeps a sequence position and storage per session; sessions are listed, reset and cleared one by one', async () => {
        const f = await client().fixture({ method: 'GET', path: '/sess' });
        const base = `/api/projects/${f.pid}/endpoints/${f.eid}`;
        const rule = await client().rule(f.token, f.pid, f.eid, {
          actions: [{ type: 'store_variable', name: 'n', value: '{{endpoint.n}}x' }],
          response: { mode: 'loop', steps: [{ statusCode: 201 }, { statusCode: 202 }, { statusCode: 203 }] },
        });
        const hit = async (session?: string) => {
          const r = await client().mock(f.pid, 'GET', '/sess', {
            headers: session ? { 'x-mockyard-session': session } : {},
          });
          return r.status;
        };
        const seen: Record<string, number[]> = { A: [], B: [] };
        for (let i = 0; i < 4; i++) {
          seen.A.push(await hit('A'));
          if (i < 2) seen.B.push(await hit('B'));
        }
        expect(seen).toEqual({ A: [201, 202, 203, 201], B: [201, 202] });
        expect(await hit()).toBe(201); // no session: its own position

        const storage = async (q = '') => (await client().api('GET', `${base}/storage${q}`, undefined, f.token)).json;
        expect(await storage('?session=A')).toEqual({ n: 'xxxx' });
        expect(await storage('?session=B')).toEqual({ n: 'xx' });
        expect(await storage()).toEqual({ n: 'x' });

        const sessions = (await client().api('GET', `${base}/sessions`, undefined, f.token)).json;
        expect(sessions.map((s: { session: string }) => s.session).sort()).toEqual(['A', 'B']);
        for (const s of sessions) expect(Number.isNaN(Date.parse(s.lastSeen))).toBe(false);

        const state = async (session: string) =>
          (await client().api('GET', `${rulePath(f, rule.id)}?session=${session}`, undefined, f.token)).json.state;
        expect(await state('A')).toEqual({ step: 1, served: 0 });
        expect(await state('B')).toEqual({ step: 2, served: 0 });

        const reset = await client().api('POST', `${rulePath(f, rule.id)}/reset?session=A`, undefined, f.token);
        expect(reset.status).toBe(200);
        expect(reset.json.state).toEqual({ step: 0, served: 0 });
        expect(await state('B')).toEqual({ step: 2, served: 0 });
        expect([await hit('A'), await hit('B')]).toEqual([201, 203]);

        expect((await client().api('DELETE', `${base}/storage?session=B`, undefined, f.token)).status).toBe(204);
        expect(await storage('?session=B')).toEqual({});
        expect(await storage('?session=A')).toEqual({ n: 'xxxxx' });
        expect(await storage()).toEqual({ n: 'x' });

        // without ?session= a reset and a clear apply to every session
        await client().api('POST', `${rulePath(f, rule.id)}/reset`, undefined, f.token);
        expect([await hit('A'), await hit('B'), await hit()]).toEqual([201, 201, 201]);
        expect((await client().api('DELETE', `${base}/storage`, undefined, f.token)).status).toBe(204);
        expect([await storage('?session=A'), await storage('?session=B'), await storage()]).toEqual([{}, {}, {}]);
      });
    });

    describe('X-Mockyard-Seed', () => {
      it('the same seed gives the same random conditions, $uuid and $randomInt; no seed varies', async () => {
        const f = await client().fixture({ method: 'GET', path: '/seed', responseBody: 'miss {{$uuid}}' });
        await client().rule(f.token, f.pid, f.eid, {
          conditions: [{ target: 'random', operator: 'less_than', value: 50 }],
          response: { steps: [{ statusCode: HIT, body: 'hit {{$uuid}} {{$randomInt 1 1000000000}}' }] },
        });
        const run = async (seeded: boolean) => {
          const out: string[] = [];
          for (let i = 0; i < 100; i++) {
            const headers: Record<string, string> = seeded ? { 'x-mockyard-seed': `seed-${i}` } : {};
            const r: HttpAnswer = await client().mock(f.pid, 'GET', '/seed', { headers });
            out.push(`${r.status} ${r.text}`);
          }
          return out;
        };
        const a = await run(true);
        const b = await run(true);
        expect(b).toEqual(a);
        // the outcomes depend on the seed: both branches, and 100 different uuids
        const st = countBy(a.map((x) => x.split(' ')[0]));
        expect(st[HIT]).toBeGreaterThan(10);
        expect(st[200]).toBeGreaterThan(10);
        expect(new Set(a.map((x) => x.split(' ')[2])).size).toBe(100);
        for (const x of a) expect(x.split(' ')[2]).toMatch(UUID);

        const c = await run(false);
        const d = await run(false);
        const same = c.filter((x, i) => x === d[i]).length;
        expect(same).toBe(0);
      });
    });

    describe('faults', () => {
      it('connection_reset, empty_response and malformed_body fail the way they say for a real HTTP client', async () => {
        const f = await client().fixture({ method: 'GET', path: '/fault' });
        await client().rule(f.token, f.pid, f.eid, {
          response: {
            steps: [
              { statusCode: 200, fault: 'connection_reset' },
              { statusCode: 200, fault: 'empty_response' },
              { statusCode: 200, fault: 'malformed_body' },
              { statusCode: 204 },
            ],
          },
        });
        const url = `${server.running.url}/m/${f.pid}/fault`;

        const reset = await rawGet(url);
        expect(reset.status).toBeUndefined();
        expect(reset.error?.code).toBe('ECONNRESET');
        expect(reset.error?.message).toMatch(/read ECONNRESET/);

        const empty = await rawGet(url);
        expect(empty.status).toBeUndefined();
        expect(empty.error?.message).toBe('socket hang up'); // closed before any byte of an answer

        const malformed = await rawGet(url);
        expect(malformed.status).toBe(200); // a status line arrived...
        expect(malformed.error?.code).toMatch(/^HPE_INVALID_CHUNK/); // ...then a body that does not parse
        expect(malformed.body).toBeUndefined();

        expect((await rawGet(url)).status).toBe(204); // the server is fine afterwards
      });
    });
  });
}
