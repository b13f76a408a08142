/**
 * Rule evaluation over HTTP (docs/api.md "Rules", docs/api.md "Mock traffic"): conditions of every target, AND, active
 * flag, rules without a response, sequencing (serial, concurrent, across a restart). Delays, step
 * headers, templates and regexes: answers.test.ts; mock sessions, seeds and faults: sessions-seeds-faults.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { DIALECTS, freshDatabase } from '../helpers/databases.js';
import { countBy, HIT, type MockOpts, ruleSuite } from '../helpers/rule-suite.js';
import { spawnServer } from '../helpers/server.js';

for (const dialect of DIALECTS) {
  describe(`rule evaluation (${dialect})`, () => {
    const { client, rulePath, statuses, sequenceFixture } = ruleSuite(dialect);

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
  });
}
