/**
 * Rule evaluation over HTTP, continued (docs/api.md "Rules", docs/power-features.md): X-Mockyard-Session
 * keeps sequence positions and state apart, X-Mockyard-Seed repeats random outcomes, and faults.
 */
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { countBy, HIT, rawGet, ruleSuite, UUID } from '../helpers/rule-suite.js';
import type { HttpAnswer } from '../helpers/server.js';

for (const dialect of DIALECTS) {
  describe(`mock sessions, seeds and faults (${dialect})`, () => {
    const { client, baseUrl, rulePath } = ruleSuite(dialect);

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
        const url = `${baseUrl()}/m/${f.pid}/fault`;

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
