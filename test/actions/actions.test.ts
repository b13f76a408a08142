/**
 * Actions over HTTP (docs/api.md "Rules"): set_variable, store_variable (persisted,
 * exact under concurrency, across a restart), http_request (templating, applyResponse, saveAs,
 * onError; timeouts, the 10 s budget, blocked targets and the hop limit: action-limits.test.ts).
 * Outbound calls go to a local receiver on 127.0.0.1 that the server is allowed to reach
 * (test/helpers/receiver.ts); a second local "canary" server is not on the allow list and must never
 * see a connection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, freshDatabase } from '../helpers/databases.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { freePort, spawnServer, startTestServer, type TestClient, type TestServer } from '../helpers/server.js';

for (const dialect of DIALECTS) {
  describe(`actions (${dialect})`, () => {
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

    it('set_variable renders a template into {{vars.NAME}} for the rest of the request', async () => {
      const f = await client.fixture({ method: 'GET', path: '/set' });
      await client.rule(f.token, f.pid, f.eid, {
        actions: [
          { type: 'set_variable', name: 'x', value: '{{request.query.a}}-{{request.headers.x-b}}' },
          { type: 'set_variable', name: 'y', value: '[{{vars.x}}]' },
        ],
        response: { steps: [{ statusCode: 200, body: '{{vars.x}} {{vars.y}}', headers: { 'x-var': '{{vars.x}}' } }] },
      });
      const r = await client.mock(f.pid, 'GET', '/set', { query: 'a=1', headers: { 'x-b': 'two' } });
      expect(r.text).toBe('1-two [1-two]');
      expect(r.headers.get('x-var')).toBe('1-two');
      // variables do not outlive their request
      expect((await client.mock(f.pid, 'GET', '/set')).text).toBe('- [-]');
    });

    it('store_variable persists per endpoint, shows in GET …/storage and is cleared by DELETE', async () => {
      const f = await client.fixture({ method: 'GET', path: '/store', responseBody: 'last={{endpoint.last}}' });
      const other = await client.endpoint(f.token, f.pid, {
        method: 'GET',
        path: '/other',
        responseBody: 'last={{endpoint.last}}',
      });
      await client.rule(f.token, f.pid, f.eid, {
        conditions: [{ target: 'query', key: 'v', operator: 'exists' }],
        actions: [{ type: 'store_variable', name: 'last', value: '{{request.query.v}}' }],
      });
      const storagePath = `/api/projects/${f.pid}/endpoints/${f.eid}/storage`;
      const text = async (query?: string) => (await client.mock(f.pid, 'GET', '/store', { query })).text;

      expect(await text('v=a')).toBe('last=a'); // visible in the same request
      expect(await text()).toBe('last=a'); // and in the next one
      expect((await client.api('GET', storagePath, undefined, f.token)).json).toEqual({ last: 'a' });
      expect(await text('v=b')).toBe('last=b');
      expect((await client.mock(f.pid, 'GET', '/other')).text).toBe('last='); // storage is per endpoint
      expect(
        (await client.api('GET', `/api/projects/${f.pid}/endpoints/${other.id}/storage`, undefined, f.token)).json,
      ).toEqual({});

      const d = await client.api('DELETE', storagePath, undefined, f.token);
      expect(d.status).toBe(204);
      expect((await client.api('GET', storagePath, undefined, f.token)).json).toEqual({});
      expect(await text()).toBe('last=');

      const stranger = await client.user();
      expect((await client.api('GET', storagePath, undefined, stranger.token)).status).toBe(404);
      expect((await client.api('DELETE', storagePath, undefined, stranger.token)).status).toBe(404);
    });

    it('store_variable is exact under 300 concurrent requests: an append pattern ends with exactly 300 x', async () => {
      const f = await client.fixture({ method: 'GET', path: '/append' });
      await client.rule(f.token, f.pid, f.eid, {
        actions: [{ type: 'store_variable', name: 'list', value: '{{endpoint.list}}x' }],
        response: { steps: [{ statusCode: 200, body: '{{endpoint.list}}' }] },
      });
      const answers = await Promise.all(
        Array.from({ length: 300 }, () => client.mock(f.pid, 'GET', '/append', { timeoutMs: 60_000 })),
      );
      // every request saw its own append: the lengths are exactly 1..300
      const lengths = answers.map((a) => a.text.length).sort((a, b) => a - b);
      expect(lengths).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
      const storage = await client.api('GET', `/api/projects/${f.pid}/endpoints/${f.eid}/storage`, undefined, f.token);
      expect(storage.json).toEqual({ list: 'x'.repeat(300) });
    });

    it('store_variable values survive a restart of the process', { timeout: 90_000 }, async () => {
      const db = await freshDatabase(dialect);
      let child = await spawnServer(db.url);
      try {
        const f = await child.client.fixture({ method: 'GET', path: '/keep', responseBody: '{{endpoint.n}}' });
        await child.client.rule(f.token, f.pid, f.eid, {
          actions: [{ type: 'store_variable', name: 'n', value: '{{endpoint.n}}+' }],
        });
        expect((await child.client.mock(f.pid, 'GET', '/keep')).text).toBe('+');
        expect((await child.client.mock(f.pid, 'GET', '/keep')).text).toBe('++');
        expect(await child.stop()).toBe(0);

        child = await spawnServer(db.url);
        expect((await child.client.mock(f.pid, 'GET', '/keep')).text).toBe('+++');
        const storage = `/api/projects/${f.pid}/endpoints/${f.eid}/storage`;
        expect((await child.client.api('GET', storage, undefined, f.token)).json).toEqual({ n: '+++' });
      } finally {
        await child.stop();
        await db.drop();
      }
    });

    it('http_request sends the templated method, URL, headers and body; the mock answers as usual', async () => {
      const f = await client.fixture({ method: 'POST', path: '/orders/:id' });
      await client.rule(f.token, f.pid, f.eid, {
        actions: [
          {
            type: 'http_request',
            method: 'put',
            url: `${hook}/hook/send-{{request.params.id}}?q={{request.query.q}}`,
            headers: { 'x-sig': 'sig-{{request.headers.x-in}}', 'content-type': 'application/json' },
            body: '{"order":"{{request.params.id}}","name":"{{request.body.name}}"}',
          },
        ],
        response: { steps: [{ statusCode: 202, body: 'queued' }] },
      });
      const r = await client.mock(f.pid, 'POST', '/orders/77', {
        query: 'q=z',
        headers: { 'x-in': 'abc', 'content-type': 'application/json' },
        body: '{"name":"ann"}',
      });
      expect([r.status, r.text]).toEqual([202, 'queued']);
      const got = receiver.seenFor('send-77');
      expect(got).toHaveLength(1);
      expect(got[0]).toMatchObject({
        method: 'PUT',
        url: '/hook/send-77?q=z',
        body: '{"order":"77","name":"ann"}',
      });
      expect(got[0].headers['x-sig']).toBe('sig-abc');
      expect(got[0].headers['content-type']).toBe('application/json');
      expect(got[0].headers['x-mockyard-hop']).toBe('1');
      expect((await lastEntries(f.pid, f.token))[0].actions).toEqual([{ type: 'http_request', ok: true }]);
    });

    it('applyResponse: the target’s status, body and content type become the answer and evaluation stops', async () => {
      const f = await client.fixture({ method: 'GET', path: '/apply', responseBody: 'default' });
      await client.rule(f.token, f.pid, f.eid, {
        name: 'applies',
        conditions: [{ target: 'query', key: 'to', operator: 'exists' }],
        actions: [
          { type: 'http_request', url: '{{request.query.to}}', applyResponse: true },
          { type: 'store_variable', name: 'after', value: 'ran' },
        ],
        response: { steps: [{ statusCode: 201, body: 'own response' }] },
      });
      await client.rule(f.token, f.pid, f.eid, {
        name: 'later',
        priority: 1,
        actions: [{ type: 'store_variable', name: 'later', value: 'ran' }],
      });
      const a = await client.mock(f.pid, 'GET', '/apply', { query: `to=${encodeURIComponent(`${hook}/answer`)}` });
      expect([a.status, a.text, a.headers.get('content-type')]).toEqual([207, 'a,b', 'text/csv']);
      expect(a.headers.get('access-control-allow-origin')).toBe('*');
      const storage = `/api/projects/${f.pid}/endpoints/${f.eid}/storage`;
      expect((await client.api('GET', storage, undefined, f.token)).json).toEqual({});
      const [entry] = await lastEntries(f.pid, f.token);
      expect(entry.statusCode).toBe(207);
      expect(entry.actions).toEqual([{ type: 'http_request', ok: true }]);

      // a non-2xx answer is applied too: it is not a failure
      const b = await client.mock(f.pid, 'GET', '/apply', { query: `to=${encodeURIComponent(`${hook}/fail`)}` });
      expect([b.status, b.text]).toEqual([500, 'boom']);

      // a failed call applies nothing: the rule's own response answers
      const c = await client.mock(f.pid, 'GET', '/apply', {
        query: `to=${encodeURIComponent(`http://127.0.0.1:${refusedPort}/x`)}`,
      });
      expect([c.status, c.text]).toEqual([201, 'own response']);
    });

    it('saveAs keeps status, headers and body for later templates: {{vars.r.status}}, {{vars.r.body.a.b}}, {{vars.r.headers.x-h}}', async () => {
      const f = await client.fixture({ method: 'GET', path: '/save' });
      await client.rule(f.token, f.pid, f.eid, {
        actions: [
          { type: 'http_request', url: `${hook}/json`, saveAs: 'r' },
          {
            type: 'http_request',
            method: 'POST',
            url: `${hook}/hook/saved`,
            headers: { 'x-status': '{{vars.r.status}}' },
            body: '{{vars.r.body.a.b}}',
          },
        ],
        response: {
          steps: [
            {
              statusCode: 200,
              body: '{{vars.r.status}}|{{vars.r.body.a.b}}|{{vars.r.headers.x-h}}|{{vars.r.body.n.1}}',
            },
          ],
        },
      });
      expect((await client.mock(f.pid, 'GET', '/save')).text).toBe('203|deep|hv|2');
      const [sent] = receiver.seenFor('/hook/saved').slice(-1);
      expect(sent.body).toBe('deep');
      expect(sent.headers['x-status']).toBe('203');
    });

    it('onError: stop skips every later action after a failure, continue runs them; a non-2xx is no failure', async () => {
      const f = await client.fixture({ method: 'GET', path: '/errors', responseBody: 'v={{vars.v}}' });
      const rule = await client.rule(f.token, f.pid, f.eid, { name: 'pipeline' });
      const storage = `/api/projects/${f.pid}/endpoints/${f.eid}/storage`;
      const cases: [string, string, 'stop' | 'continue', boolean, RegExp | null][] = [
        ['blocked target', 'http://10.0.0.1/x', 'stop', false, /^blocked/],
        ['refused connection', `http://127.0.0.1:${refusedPort}/x`, 'stop', false, /refused/],
        ['invalid url', 'http://exa mple/', 'stop', false, /invalid url/],
        ['blocked target', 'http://10.0.0.1/x', 'continue', true, /^blocked/],
        ['refused connection', `http://127.0.0.1:${refusedPort}/x`, 'continue', true, /refused/],
        ['a 500 answer', `${hook}/fail`, 'stop', true, null],
      ];
      for (const [what, url, onError, later, error] of cases) {
        await client.api('DELETE', storage, undefined, f.token);
        const up = await client.api(
          'PATCH',
          `/api/projects/${f.pid}/endpoints/${f.eid}/rules/${rule.id}`,
          {
            actions: [
              { type: 'http_request', url, onError },
              { type: 'set_variable', name: 'v', value: 'ran' },
              { type: 'store_variable', name: 's', value: 'ran' },
            ],
          },
          f.token,
        );
        expect(up.status).toBe(200);
        const r = await client.mock(f.pid, 'GET', '/errors');
        expect(r.text, `${what}, ${onError}`).toBe(later ? 'v=ran' : 'v=');
        expect((await client.api('GET', storage, undefined, f.token)).json, `${what}, ${onError}`).toEqual(
          later ? { s: 'ran' } : {},
        );
        const [entry] = await lastEntries(f.pid, f.token);
        const [first, ...rest] = entry.actions;
        if (error) expect(first, `${what}, ${onError}`).toMatchObject({ type: 'http_request', ok: false, error });
        else expect(first).toEqual({ type: 'http_request', ok: true });
        for (const a of rest) {
          if (later) expect(a).toEqual({ type: a.type, ok: true });
          else expect(a).toMatchObject({ ok: false, error: expect.stringMatching(/skipped/) });
        }
      }
    });
  });
}
