/**
 * Rules over HTTP (docs/api.md "Rules", docs/limits.md): CRUD, defaults, partial updates, ordering, validation
 * (plan limits, reset, sequence restarts and tenancy: rules-limits.test.ts). One server per dialect; each test builds its own
 * user, project and endpoint.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { expectError, rulePath, rulesPath, statuses as statusesOf } from '../helpers/rules-api.js';
import { startTestServer, type TestClient, type TestServer } from '../helpers/server.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

for (const dialect of DIALECTS) {
  describe(`rules API (${dialect})`, () => {
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

    it('creates a rule with only a name: every default, and reads it back three ways', async () => {
      const f = await client.fixture({ method: 'GET', path: '/defaults' });
      const r = await client.api('POST', rulesPath(f.pid, f.eid), { name: 'Only a name' }, f.token);
      expect(r.status).toBe(201);
      const rule = r.json;
      expect(rule).toMatchObject({
        endpointId: f.eid,
        name: 'Only a name',
        priority: 0,
        active: true,
        conditions: [],
        response: null,
        actions: [],
        state: { step: 0, served: 0 },
      });
      expect(typeof rule.id).toBe('string');
      expect(rule.createdAt).toMatch(ISO);
      expect(rule.updatedAt).toMatch(ISO);

      const one = await client.api('GET', rulePath(f.pid, f.eid, rule.id), undefined, f.token);
      expect(one.status).toBe(200);
      expect(one.json).toEqual(rule);
      const list = await client.api('GET', rulesPath(f.pid, f.eid), undefined, f.token);
      expect(list.json).toEqual([rule]);
      const ep = await client.api('GET', `/api/projects/${f.pid}/endpoints/${f.eid}`, undefined, f.token);
      expect(ep.json.rules).toEqual([rule]);
    });

    it('fills response, step and action defaults; a numeric condition value becomes its decimal text', async () => {
      const f = await client.fixture({ method: 'GET', path: '/fill' });
      const rule = await client.rule(f.token, f.pid, f.eid, {
        conditions: [
          { target: 'query', key: 'n', operator: 'less_than', value: 12.5 },
          { target: 'method', key: 'ignored', operator: 'exists', value: 'ignored' },
        ],
        response: { steps: [{ statusCode: 201 }] },
        actions: [
          { type: 'set_variable', name: 'a', value: '1' },
          { type: 'store_variable', name: 'b' },
          { type: 'http_request', url: 'https://example.com/hook' },
        ],
      });
      expect(rule.conditions).toEqual([
        { target: 'query', key: 'n', operator: 'less_than', value: '12.5' },
        { target: 'method', operator: 'exists' },
      ]);
      expect(rule.response).toEqual({
        mode: 'loop',
        steps: [{ statusCode: 201, body: '', headers: {}, delayMs: 0, delayMaxMs: 0, count: 1 }],
      });
      expect(rule.actions).toEqual([
        { type: 'set_variable', name: 'a', value: '1', onError: 'continue' },
        { type: 'store_variable', name: 'b', value: '', onError: 'continue' },
        {
          type: 'http_request',
          url: 'https://example.com/hook',
          method: 'GET',
          headers: {},
          body: '',
          applyResponse: false,
          timeoutMs: 5000,
          onError: 'continue',
        },
      ]);
    });

    it('updates partially with PUT and PATCH, ignores read-only fields, rejects unknown ones; DELETE → 204 then 404', async () => {
      const f = await client.fixture({ method: 'GET', path: '/partial' });
      const conditions = [{ target: 'header', key: 'x-tier', operator: 'equals', value: 'vip' }];
      const response = {
        mode: 'hold_last',
        steps: [{ statusCode: 201, body: 'b', headers: { 'x-a': '1' }, delayMs: 0, delayMaxMs: 0, count: 2 }],
      };
      const actions = [{ type: 'set_variable', name: 'v', value: 'x', onError: 'stop' }];
      const created = await client.rule(f.token, f.pid, f.eid, {
        name: 'a',
        priority: 3,
        conditions,
        response,
        actions,
      });
      const rp = rulePath(f.pid, f.eid, created.id);

      let r = await client.api('PUT', rp, { name: 'b' }, f.token);
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ name: 'b', priority: 3, active: true, conditions, response, actions });

      r = await client.api('PATCH', rp, { active: false }, f.token);
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ name: 'b', priority: 3, active: false, conditions, response, actions });

      r = await client.api(
        'PATCH',
        rp,
        {
          id: 'other',
          endpointId: 'other',
          state: { step: 7, served: 9 },
          createdAt: '2000-01-01T00:00:00.000Z',
          updatedAt: '2000-01-01T00:00:00.000Z',
          priority: -4,
        },
        f.token,
      );
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({
        id: created.id,
        endpointId: f.eid,
        state: { step: 0, served: 0 },
        createdAt: created.createdAt,
        priority: -4,
      });
      expect(r.json.updatedAt).not.toBe('2000-01-01T00:00:00.000Z');

      expectError(await client.api('PATCH', rp, { bogus: 1 }, f.token), 400, 'validation_failed', 'unknown field');
      expectError(await client.api('PATCH', rp, { name: '' }, f.token), 400, 'validation_failed', 'empty name');
      expect((await client.api('GET', rp, undefined, f.token)).json).toMatchObject({ name: 'b', priority: -4 });

      const d = await client.api('DELETE', rp, undefined, f.token);
      expect(d.status).toBe(204);
      expect(d.text).toBe('');
      expectError(await client.api('GET', rp, undefined, f.token), 404, 'not_found', 'GET deleted');
      expectError(await client.api('PATCH', rp, { name: 'c' }, f.token), 404, 'not_found', 'PATCH deleted');
      expectError(await client.api('DELETE', rp, undefined, f.token), 404, 'not_found', 'DELETE deleted');
      expectError(await client.api('POST', `${rp}/reset`, undefined, f.token), 404, 'not_found', 'reset deleted');
      expect((await client.api('GET', rulesPath(f.pid, f.eid), undefined, f.token)).json).toEqual([]);
    });

    it('lists and evaluates rules by priority (lower first), then by creation', async () => {
      const f = await client.fixture({ method: 'GET', path: '/order' });
      const mk = (name: string, priority: number, statusCode: number) =>
        client.rule(f.token, f.pid, f.eid, { name, priority, response: { steps: [{ statusCode }] } });
      await mk('a', 5, 201);
      const b = await mk('b', 1, 202);
      const c = await mk('c', 5, 203);
      const names = async () =>
        (await client.api('GET', rulesPath(f.pid, f.eid), undefined, f.token)).json.map(
          (x: { name: string }) => x.name,
        );
      const endpointNames = async () =>
        (await client.api('GET', `/api/projects/${f.pid}/endpoints/${f.eid}`, undefined, f.token)).json.rules.map(
          (x: { name: string }) => x.name,
        );

      expect(await names()).toEqual(['b', 'a', 'c']);
      expect(await endpointNames()).toEqual(['b', 'a', 'c']);
      expect(await statuses(f, 1)).toEqual([202]);

      await client.api('PATCH', rulePath(f.pid, f.eid, b.id), { active: false }, f.token);
      expect(await names()).toEqual(['b', 'a', 'c']); // inactive rules are still listed in order
      expect(await statuses(f, 1)).toEqual([201]); // same priority: the earlier one

      await client.api('PATCH', rulePath(f.pid, f.eid, c.id), { priority: -1 }, f.token);
      expect(await names()).toEqual(['c', 'b', 'a']);
      expect(await statuses(f, 1)).toEqual([203]);
    });

    it('rejects every invalid rule with 400 validation_failed and stores nothing', async () => {
      const f = await client.fixture({ method: 'GET', path: '/invalid' });
      const steps = (...s: unknown[]) => ({ name: 'n', response: { steps: s } });
      const cond = (c: Record<string, unknown>) => ({ name: 'n', conditions: [c] });
      const act = (a: Record<string, unknown>) => ({ name: 'n', actions: [a] });
      const many = <T>(n: number, x: T) => Array.from({ length: n }, () => x);
      const cases: [string, Record<string, unknown>][] = [
        ['no name', {}],
        ['empty name', { name: '' }],
        ['blank name', { name: '   ' }],
        ['101-character name', { name: 'x'.repeat(101) }],
        ['name a number', { name: 5 }],
        ['priority 1.5', { name: 'n', priority: 1.5 }],
        ['priority "1"', { name: 'n', priority: '1' }],
        ['active "yes"', { name: 'n', active: 'yes' }],
        ['unknown field', { name: 'n', extra: true }],
        ['conditions not a list', { name: 'n', conditions: {} }],
        ['unknown target', cond({ target: 'cookie', key: 'a', operator: 'equals', value: 'x' })],
        ['unknown operator', cond({ target: 'header', key: 'a', operator: 'resembles', value: 'x' })],
        ['unknown condition field', cond({ target: 'method', operator: 'equals', value: 'GET', flag: 1 })],
        ['header without key', cond({ target: 'header', operator: 'equals', value: 'x' })],
        ['header with empty key', cond({ target: 'header', key: '', operator: 'exists' })],
        ['query without key', cond({ target: 'query', operator: 'exists' })],
        ['body_json without key', cond({ target: 'body_json', operator: 'equals', value: 'x' })],
        ['equals without value', cond({ target: 'method', operator: 'equals' })],
        ['not_contains without value', cond({ target: 'body', operator: 'not_contains' })],
        ['matches_regex without value', cond({ target: 'path', operator: 'matches_regex' })],
        ['less_than without value', cond({ target: 'query', key: 'n', operator: 'less_than' })],
        ['less_than non-numeric', cond({ target: 'query', key: 'n', operator: 'less_than', value: 'ten' })],
        ['value an object', cond({ target: 'method', operator: 'equals', value: { a: 1 } })],
        ['random with equals', cond({ target: 'random', operator: 'equals', value: '5' })],
        ['random without value', cond({ target: 'random', operator: 'less_than' })],
        ['random 101', cond({ target: 'random', operator: 'less_than', value: 101 })],
        ['random -1', cond({ target: 'random', operator: 'less_than', value: '-1' })],
        ['regex "("', cond({ target: 'header', key: 'a', operator: 'matches_regex', value: '(' })],
        ['regex "[a-"', cond({ target: 'header', key: 'a', operator: 'matches_regex', value: '[a-' })],
        ['regex "*x"', cond({ target: 'body', operator: 'matches_regex', value: '*x' })],
        ['response without steps', { name: 'n', response: { mode: 'loop' } }],
        ['response with no steps', steps()],
        ['mode shuffle', { name: 'n', response: { mode: 'shuffle', steps: [{ statusCode: 200 }] } }],
        ['step without statusCode', steps({ body: 'x' })],
        ['step statusCode 99', steps({ statusCode: 99 })],
        ['step statusCode 600', steps({ statusCode: 600 })],
        ['step statusCode "200"', steps({ statusCode: '200' })],
        ['step count 0', steps({ statusCode: 200, count: 0 })],
        ['step delayMs -1', steps({ statusCode: 200, delayMs: -1 })],
        ['step delayMs 60001', steps({ statusCode: 200, delayMs: 60_001 })],
        ['step header value with CR LF', steps({ statusCode: 200, headers: { 'x-a': 'a\r\nSet-Cookie: x=1' } })],
        ['step header name with a space', steps({ statusCode: 200, headers: { 'x a': '1' } })],
        ['step header value a number', steps({ statusCode: 200, headers: { 'x-a': 1 } })],
        ['unknown fault', steps({ statusCode: 200, fault: 'explode' })],
        ['unknown step field', steps({ statusCode: 200, wait: 5 })],
        ['unknown action type', act({ type: 'launch_missiles' })],
        ['action without type', act({ name: 'v', value: 'x' })],
        ['onError "explode"', act({ type: 'set_variable', name: 'v', value: 'x', onError: 'explode' })],
        ['set_variable without name', act({ type: 'set_variable', value: 'x' })],
        ['store_variable with empty name', act({ type: 'store_variable', name: '', value: 'x' })],
        ['set_variable with a url', act({ type: 'set_variable', name: 'v', value: 'x', url: 'https://a.example' })],
        ['http_request without url', act({ type: 'http_request' })],
        ['http_request with a name', act({ type: 'http_request', url: 'https://a.example', name: 'v' })],
        ['http_request timeoutMs 0', act({ type: 'http_request', url: 'https://a.example', timeoutMs: 0 })],
        ['http_request timeoutMs 10001', act({ type: 'http_request', url: 'https://a.example', timeoutMs: 10_001 })],
        ['http_request method "GET X"', act({ type: 'http_request', url: 'https://a.example', method: 'GET X' })],
        [
          'http_request header with CR LF',
          act({ type: 'http_request', url: 'https://a.example', headers: { 'x-a': 'v\r\nx-b: 1' } }),
        ],
        [
          'http_request header with a bare LF',
          act({ type: 'http_request', url: 'https://a.example', headers: { 'x-a': 'v\nx-b: 1' } }),
        ],
        ['applyResponse "yes"', act({ type: 'http_request', url: 'https://a.example', applyResponse: 'yes' })],
        ['51 conditions', { name: 'n', conditions: many(51, { target: 'method', operator: 'exists' }) }],
        ['101 steps', steps(...many(101, { statusCode: 200 }))],
        ['21 actions', { name: 'n', actions: many(21, { type: 'set_variable', name: 'v', value: 'x' }) }],
      ];
      const wrong: string[] = [];
      for (const [what, body] of cases) {
        const r = await client.api('POST', rulesPath(f.pid, f.eid), body, f.token);
        const ok =
          r.status === 400 &&
          r.json?.error?.code === 'validation_failed' &&
          Array.isArray(r.json.error.details) &&
          r.json.error.details.length > 0;
        if (!ok) wrong.push(`${what}: ${r.status} ${r.text.slice(0, 200)}`);
      }
      expect(wrong).toEqual([]);
      expect((await client.api('GET', rulesPath(f.pid, f.eid), undefined, f.token)).json).toEqual([]);

      // details point at the field
      const r = await client.api(
        'POST',
        rulesPath(f.pid, f.eid),
        {
          name: 'n',
          conditions: [
            { target: 'method', operator: 'exists' },
            { target: 'header', operator: 'exists' },
          ],
        },
        f.token,
      );
      expect(r.json.error.details.map((d: { path: string }) => d.path)).toContain('/conditions/1/key');
    });

    it('accepts the edges of every limit: 50 conditions, 100 steps, 20 actions, status 100 and 599', async () => {
      const f = await client.fixture({ method: 'GET', path: '/edges' });
      const rule = await client.rule(f.token, f.pid, f.eid, {
        conditions: Array.from({ length: 50 }, () => ({ target: 'method', operator: 'equals', value: 'GET' })),
        response: { steps: Array.from({ length: 100 }, (_, i) => ({ statusCode: i === 0 ? 100 : 599 })) },
        actions: Array.from({ length: 20 }, (_, i) => ({ type: 'set_variable', name: `v${i}`, value: 'x' })),
      });
      expect(rule.conditions).toHaveLength(50);
      expect(rule.response.steps).toHaveLength(100);
      expect(rule.actions).toHaveLength(20);
    });

    it('matches_regex: an invalid pattern on update is a 400 and changes nothing', async () => {
      const f = await client.fixture({ method: 'GET', path: '/regex' });
      const good = [{ target: 'header', key: 'x', operator: 'matches_regex', value: '^a+$' }];
      const rule = await client.rule(f.token, f.pid, f.eid, { conditions: good });
      const r = await client.api(
        'PUT',
        rulePath(f.pid, f.eid, rule.id),
        { name: 'renamed', conditions: [{ target: 'header', key: 'x', operator: 'matches_regex', value: '(' }] },
        f.token,
      );
      expectError(r, 400, 'validation_failed', 'update with "("');
      expect(r.json.error.details.map((d: { path: string }) => d.path)).toContain('/conditions/0/value');
      expect((await client.api('GET', rulePath(f.pid, f.eid, rule.id), undefined, f.token)).json).toMatchObject({
        name: 'r',
        conditions: good,
      });
    });
  });
}
