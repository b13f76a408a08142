/**
 * Rule answers over HTTP (docs/api.md "Rules"): delays with jitter that never block the server, step
 * headers and content types, templates from the request (never code), and a catastrophic regex that
 * answers quickly.
 */
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { HIT, ruleSuite, UUID } from '../helpers/rule-suite.js';
import { request } from '../helpers/server.js';

for (const dialect of DIALECTS) {
  describe(`rule answers (${dialect})`, () => {
    const { client, baseUrl, rulePath } = ruleSuite(dialect);

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
      const health = await request(`${baseUrl()}/healthz`);
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
        const health = await request(`${baseUrl()}/healthz`, { timeoutMs: 5000 });
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
  });
}
