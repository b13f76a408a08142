/**
 * Actions over HTTP, continued (docs/actions.md "Blocked targets", docs/limits.md): private targets
 * blocked in every spelling and through redirects, timeouts and the per-request budget that never
 * stop the pipeline, CR/LF in headers refused at save, and the hop limit on webhooks to ourselves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { freePort, startTestServer, type TestClient, type TestServer } from '../helpers/server.js';

for (const dialect of DIALECTS) {
  describe(`actions: egress and limits (${dialect})`, () => {
    let server: TestServer;
    let client: TestClient;
    let receiver: Receiver;
    let canary: Receiver;
    let refusedPort: number;
    let hook: string;

    beforeAll(async () => {
      canary = await startReceiver(0);
      receiver = await startReceiver(canary.port);
      refusedPort = await freePort(); // nothing listens there
      const port = await freePort();
      server = await startTestServer(dialect, {
        port,
        allowTargets: [`127.0.0.1:${receiver.port}`, `127.0.0.1:${refusedPort}`, `127.0.0.1:${port}`],
      });
      client = server.client;
      hook = `http://127.0.0.1:${receiver.port}`;
    });
    afterAll(async () => {
      await server?.close();
      await receiver?.close();
      await canary?.close();
    });

    // biome-ignore lint/suspicious/noExplicitAny: log entries are inspected freely
    async function lastEntries(pid: string, token: string, limit = 1): Promise<any[]> {
      const r = await client.api('GET', `/api/projects/${pid}/requests?limit=${limit}`, undefined, token);
      expect(r.status).toBe(200);
      return r.json;
    }

    it('a private target not on the allow list is blocked in every spelling and through a redirect; the canary sees no connection', async () => {
      const f = await client.fixture({ method: 'GET', path: '/ssrf', responseBody: 'answered' });
      const c = canary.port;
      const urls = [
        `http://127.0.0.1:${c}/a`,
        `http://localhost:${c}/a`,
        `http://127.1:${c}/a`,
        `http://2130706433:${c}/a`,
        `http://0x7f000001:${c}/a`,
        `http://[::ffff:127.0.0.1]:${c}/a`,
        `${hook}/redirect-to-canary`,
      ];
      await client.rule(f.token, f.pid, f.eid, {
        actions: urls.map((url) => ({ type: 'http_request', url, method: 'POST', body: 'secret' })),
      });
      const r = await client.mock(f.pid, 'GET', '/ssrf');
      expect([r.status, r.text]).toEqual([200, 'answered']);
      const [entry] = await lastEntries(f.pid, f.token);
      expect(entry.actions).toHaveLength(urls.length);
      for (const [i, a] of entry.actions.entries()) {
        expect(a, urls[i]).toMatchObject({ type: 'http_request', ok: false, error: expect.stringMatching(/^blocked/) });
        expect(a.error, 'the error does not echo the address').not.toContain(String(c));
      }
      expect(receiver.seenFor('/redirect-to-canary')).toHaveLength(1); // the allowed hop was made
      expect(canary.connections()).toBe(0);
    });

    it('a timeout never stops the pipeline: a 3 s target with timeoutMs 500 and onError stop; the answer comes in < 2 s', async () => {
      const f = await client.fixture({ method: 'GET', path: '/timeout' });
      await client.rule(f.token, f.pid, f.eid, {
        actions: [
          { type: 'http_request', url: `${hook}/slow/t1?ms=3000`, timeoutMs: 500, onError: 'stop' },
          { type: 'set_variable', name: 'v', value: 'after' },
        ],
        response: { steps: [{ statusCode: 200, body: '{{vars.v}}' }] },
      });
      const r = await client.mock(f.pid, 'GET', '/timeout');
      expect(r.text).toBe('after');
      expect(r.ms).toBeGreaterThanOrEqual(490);
      expect(r.ms).toBeLessThan(2000);
      const [entry] = await lastEntries(f.pid, f.token);
      expect(entry.actions).toEqual([
        { type: 'http_request', ok: false, error: expect.stringMatching(/timeout/) },
        { type: 'set_variable', ok: true },
      ]);
    });

    it('the actions of one request share a 10 s budget: four 4 s timeouts against a 6 s target end at ~10 s', {
      timeout: 40_000,
    }, async () => {
      const f = await client.fixture({ method: 'GET', path: '/budget', responseBody: 'done' });
      await client.rule(f.token, f.pid, f.eid, {
        actions: Array.from({ length: 4 }, (_, i) => ({
          type: 'http_request',
          url: `${hook}/slow/budget-${i}?ms=6000`,
          timeoutMs: 4000,
        })),
      });
      const r = await client.mock(f.pid, 'GET', '/budget', { timeoutMs: 30_000 });
      expect([r.status, r.text]).toEqual([200, 'done']);
      expect(r.ms).toBeGreaterThanOrEqual(9_900);
      expect(r.ms).toBeLessThan(12_000);
      const [entry] = await lastEntries(f.pid, f.token);
      const errors: string[] = entry.actions.map((a: { ok: boolean; error?: string }) => (a.ok ? 'ok' : a.error));
      expect(errors.slice(0, 2)).toEqual(['timeout after 4000 ms', 'timeout after 4000 ms']);
      // the third gets what is left of the budget (~2 s), the fourth nothing (or the odd millisecond
      // the clocks leave over)
      const third = Number(/^timeout after (\d+) ms$/.exec(errors[2])?.[1]);
      expect(third).toBeGreaterThan(1000);
      expect(third).toBeLessThanOrEqual(2100);
      const fourth = /^timeout after (\d+) ms$/.exec(errors[3]);
      if (fourth) expect(Number(fourth[1])).toBeLessThan(50);
      else expect(errors[3]).toMatch(/budget/);
      const sent = receiver.seenFor('budget-').map((s) => s.url.split('?')[0]);
      expect(sent.slice(0, 3)).toEqual(['/slow/budget-0', '/slow/budget-1', '/slow/budget-2']);
    });

    it('CR or LF in an action header is a 400 at save, on create and on update', async () => {
      const f = await client.fixture({ method: 'GET', path: '/crlf' });
      const rules = `/api/projects/${f.pid}/endpoints/${f.eid}/rules`;
      const action = (headers: Record<string, string>) => ({
        name: 'h',
        actions: [{ type: 'http_request', url: `${hook}/x`, headers }],
      });
      const bad: Record<string, string>[] = [
        { 'x-a': 'v\r\nx-injected: 1' },
        { 'x-a': 'v\nx' },
        { 'x-a': 'v\rx' },
        { 'x-a\r\nb': 'v' },
      ];
      for (const headers of bad) {
        const r = await client.api('POST', rules, action(headers), f.token);
        expect(r.status, JSON.stringify(headers)).toBe(400);
        expect(r.json.error.code).toBe('validation_failed');
        expect(r.json.error.details[0].path).toMatch(/^\/actions\/0\/headers/);
      }
      const ok = await client.rule(f.token, f.pid, f.eid, action({ 'x-a': 'fine' }));
      const r = await client.api('PATCH', `${rules}/${ok.id}`, action({ 'x-a': 'v\r\nx' }), f.token);
      expect(r.status).toBe(400);
      expect((await client.api('GET', `${rules}/${ok.id}`, undefined, f.token)).json.actions[0].headers).toEqual({
        'x-a': 'fine',
      });
    });

    it('a webhook to the service’s own mock URL does not loop forever: the hop limit stops it', async () => {
      const f = await client.fixture({ method: 'POST', path: '/loop', responseBody: 'looped' });
      await client.rule(f.token, f.pid, f.eid, {
        actions: [
          { type: 'http_request', method: 'POST', url: `${server.running.url}/m/${f.pid}/loop`, body: 'again' },
        ],
      });
      const r = await client.mock(f.pid, 'POST', '/loop', { body: 'start', timeoutMs: 20_000 });
      expect([r.status, r.text]).toEqual([200, 'looped']);
      const entries = await lastEntries(f.pid, f.token, 50);
      expect(entries.length).toBeGreaterThanOrEqual(2);
      expect(entries.length).toBeLessThanOrEqual(6);
      const blocked = entries.filter((e) => e.actions[0]?.ok === false);
      expect(blocked).toHaveLength(1);
      expect(blocked[0].actions[0].error).toMatch(/^blocked/);
      // nothing keeps going in the background
      await new Promise((res) => setTimeout(res, 300));
      expect(await lastEntries(f.pid, f.token, 50)).toHaveLength(entries.length);
    });
  });
}
