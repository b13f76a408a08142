/**
 * The request log over HTTP (docs/api.md "Request log"): entries newest first with every field and the rule
 * traces, the limit parameter, retention of at least 1000 entries, the live SSE stream, tenant
 * scoping and redaction of credentials.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { startTestServer, type TestClient, type TestServer } from '../helpers/server.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** An open SSE response, read from the fetch body stream. */
async function openStream(url: string, token: string) {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: abort.signal });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  /** Reads until `pick` finds something in the text received so far, or the time is up. */
  async function until<T>(pick: (text: string) => T | undefined, timeoutMs: number): Promise<T | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = pick(buffer);
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      let timer: NodeJS.Timeout | undefined;
      const chunk = await Promise.race([
        reader.read(),
        new Promise<'timeout'>((r) => {
          timer = setTimeout(() => r('timeout'), left);
        }),
      ]);
      clearTimeout(timer);
      if (chunk === 'timeout') return pick(buffer);
      if (chunk.done) return pick(buffer);
      buffer += decoder.decode(chunk.value, { stream: true });
    }
  }
  // biome-ignore lint/suspicious/noExplicitAny: entries are inspected freely
  const events = (text: string): any[] =>
    text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)));
  return {
    res,
    until,
    events,
    text: () => buffer,
    close: () => {
      abort.abort();
      reader.cancel().catch(() => {});
    },
  };
}

for (const dialect of DIALECTS) {
  describe(`request log (${dialect})`, () => {
    let server: TestServer;
    let client: TestClient;

    beforeAll(async () => {
      server = await startTestServer(dialect);
      client = server.client;
    });
    afterAll(async () => {
      await server?.close();
    });

    const logPath = (pid: string, q = '') => `/api/projects/${pid}/requests${q}`;

    it('lists entries newest first with every field, the actions and why each rule did or did not match', async () => {
      const f = await client.fixture({ method: 'POST', path: '/log/:id' });
      const vip = await client.rule(f.token, f.pid, f.eid, {
        name: 'vip only',
        conditions: [
          { target: 'method', operator: 'equals', value: 'POST' },
          { target: 'header', key: 'x-tier', operator: 'equals', value: 'vip' },
        ],
        response: { steps: [{ statusCode: 299 }] },
      });
      const any = await client.rule(f.token, f.pid, f.eid, {
        name: 'everyone',
        priority: 1,
        actions: [{ type: 'set_variable', name: 'v', value: '1' }],
        response: { steps: [{ statusCode: 201, body: 'made' }] },
      });
      const before = Date.now();
      const a = await client.mock(f.pid, 'POST', '/log/7', {
        query: 'a=1&b=two',
        headers: { 'x-custom': 'hello', 'content-type': 'application/json' },
        body: '{"k":1}',
      });
      expect(a.status).toBe(201);
      const b = await client.mock(f.pid, 'GET', '/nothing-here');
      expect(b.status).toBe(404);

      const r = await client.api('GET', logPath(f.pid), undefined, f.token);
      expect(r.status).toBe(200);
      expect(r.json).toHaveLength(2);
      const [miss, hit] = r.json;
      expect(Object.keys(hit).sort()).toEqual(
        expect.arrayContaining([
          'actions',
          'at',
          'body',
          'durationMs',
          'endpointId',
          'headers',
          'id',
          'method',
          'path',
          'query',
          'ruleId',
          'rules',
          'statusCode',
        ]),
      );
      expect(hit).toMatchObject({
        method: 'POST',
        path: '/log/7',
        query: 'a=1&b=two',
        body: '{"k":1}',
        endpointId: f.eid,
        ruleId: any.id,
        statusCode: 201,
        actions: [{ type: 'set_variable', ok: true }],
        rules: [
          { ruleId: vip.id, name: 'vip only', matched: false, failedCondition: 1 },
          { ruleId: any.id, name: 'everyone', matched: true },
        ],
      });
      expect(hit.headers['x-custom']).toBe('hello');
      expect(typeof hit.id).toBe('string');
      expect(hit.at).toMatch(ISO);
      expect(Math.abs(Date.parse(hit.at) - before)).toBeLessThan(60_000);
      expect(typeof hit.durationMs).toBe('number');
      expect(hit.durationMs).toBeGreaterThanOrEqual(0);

      expect(miss).toMatchObject({
        method: 'GET',
        path: '/nothing-here',
        endpointId: null,
        ruleId: null,
        statusCode: 404,
        actions: [],
      });
      expect(miss.id).not.toBe(hit.id);

      // a request that falls through to the default response names no rule
      await client.api(
        'PATCH',
        `/api/projects/${f.pid}/endpoints/${f.eid}/rules/${any.id}`,
        { conditions: [{ target: 'query', key: 'never', operator: 'exists' }] },
        f.token,
      );
      await client.mock(f.pid, 'POST', '/log/8');
      const [fallthrough] = (await client.api('GET', logPath(f.pid, '?limit=1'), undefined, f.token)).json;
      expect(fallthrough).toMatchObject({
        path: '/log/8',
        ruleId: null,
        statusCode: 200,
        rules: [
          { ruleId: vip.id, matched: false, failedCondition: 1 },
          { ruleId: any.id, matched: false, failedCondition: 0 },
        ],
      });
    });

    it('keeps the answer sent: headers, body, the step of its sequence, the delay and a fault', async () => {
      const f = await client.fixture({ method: 'GET', path: '/sent/:id' });
      await client.rule(f.token, f.pid, f.eid, {
        name: 'steps',
        conditions: [{ target: 'query', key: 'seq', operator: 'exists' }],
        response: {
          mode: 'hold_last',
          steps: [
            { statusCode: 201, headers: { 'x-id': '{{request.params.id}}' }, body: '{"id":"{{request.params.id}}"}' },
            { statusCode: 202, delayMs: 30, body: 'later' },
          ],
        },
      });
      await client.rule(f.token, f.pid, f.eid, {
        name: 'broken',
        conditions: [{ target: 'query', key: 'fault', operator: 'exists' }],
        response: { steps: [{ statusCode: 200, fault: 'empty_response' }] },
      });
      expect((await client.mock(f.pid, 'GET', '/sent/41', { query: 'seq' })).status).toBe(201);
      expect((await client.mock(f.pid, 'GET', '/sent/42', { query: 'seq' })).status).toBe(202);
      await client.mock(f.pid, 'GET', '/sent/43', { query: 'fault' }).catch(() => undefined);
      expect((await client.mock(f.pid, 'GET', '/sent/44')).status).toBe(200);

      let entries: { path: string; response?: Record<string, unknown> }[] = [];
      await expect
        .poll(async () => {
          entries = (await client.api('GET', logPath(f.pid), undefined, f.token)).json;
          return entries.length;
        })
        .toBe(4);
      const by = (path: string) => entries.find((e) => e.path === path)?.response;
      expect(by('/sent/41')).toMatchObject({
        body: '{"id":"41"}',
        headers: { 'x-id': '41', 'content-length': '11', 'access-control-allow-origin': '*' },
        step: { index: 0, of: 2 },
      });
      expect(by('/sent/41')?.delayMs).toBeUndefined();
      expect(by('/sent/42')).toMatchObject({ body: 'later', step: { index: 1, of: 2 }, delayMs: 30 });
      expect(by('/sent/43')).toMatchObject({ step: { index: 0, of: 1 }, fault: 'empty_response' });
      // the endpoint's default answer: no step
      expect(by('/sent/44')).toMatchObject({ body: expect.any(String), headers: expect.any(Object) });
      expect(by('/sent/44')?.step).toBeUndefined();
    });

    it('logs each rendered default answer with its own length, as it was sent', async () => {
      // each entry keeps the headers its own answer went out with: headers reused across answers of
      // one endpoint (whatever their length) would log a wrong content-length
      const f = await client.fixture({ method: 'GET', path: '/echo', responseBody: '{{request.query.v}}' });
      const values = ['aa', 'aa', 'bbbbb', 'aa', 'c', 'c'];
      for (const v of values) {
        const r = await client.mock(f.pid, 'GET', '/echo', { query: `v=${v}` });
        expect({ body: r.text, length: r.headers.get('content-length') }).toEqual({
          body: v,
          length: String(v.length),
        });
      }
      let entries: { query: string; response?: { body: string; headers: Record<string, string> } }[] = [];
      await expect
        .poll(async () => {
          entries = (await client.api('GET', logPath(f.pid), undefined, f.token)).json;
          return entries.length;
        })
        .toBe(values.length);
      expect(entries.map((e) => [e.query, e.response?.body, e.response?.headers['content-length']])).toEqual(
        values.map((v) => [`v=${v}`, v, String(v.length)]).reverse(),
      );
    });

    it('limit: default 50, any value up to 500, invalid values → 400', async () => {
      const f = await client.fixture({ method: 'GET', path: '/n' });
      for (let i = 0; i < 60; i++) await client.mock(f.pid, 'GET', '/n', { query: `i=${i}` });
      const queries = async (q: string) =>
        (await client.api('GET', logPath(f.pid, q), undefined, f.token)).json.map((e: { query: string }) => e.query);
      const newest = (n: number) => Array.from({ length: n }, (_, k) => `i=${59 - k}`);
      expect(await queries('')).toEqual(newest(50));
      expect(await queries('?limit=5')).toEqual(newest(5));
      expect(await queries('?limit=1')).toEqual(newest(1));
      expect(await queries('?limit=500')).toEqual(newest(60));
      for (const bad of ['abc', '0', '-1', '1.5', '']) {
        const r = await client.api('GET', logPath(f.pid, `?limit=${bad}`), undefined, f.token);
        expect({ bad, status: r.status, code: r.json?.error?.code }).toEqual({
          bad,
          status: 400,
          code: 'validation_failed',
        });
      }
    });

    it('keeps at least the last 1000 entries of a project and answers at most 500', { timeout: 90_000 }, async () => {
      const f = await client.fixture({ method: 'GET', path: '/many' });
      const total = 1100;
      const batch = 25; // batches run one after another, so the last 1000 are exactly i = 100…1099
      for (let start = 0; start < total; start += batch) {
        await Promise.all(
          Array.from({ length: batch }, (_, k) => client.mock(f.pid, 'GET', '/many', { query: `i=${start + k}` })),
        );
      }
      for (const q of ['?limit=500', '?limit=501', '?limit=100000']) {
        const r = await client.api('GET', logPath(f.pid, q), undefined, f.token);
        expect(r.status).toBe(200);
        expect(r.json).toHaveLength(500);
      }
      // the API never shows more than 500, so read what is kept from the server's own store
      const kept = await server.running.store.logs.list(f.id, f.pid, 10_000);
      const seen = new Set(kept.map((e) => Number(e.query.slice(2))));
      const missing = Array.from({ length: 1000 }, (_, k) => 100 + k).filter((i) => !seen.has(i));
      expect(missing).toEqual([]);
    });

    it('streams each mock request as an SSE `data:` line of Entry JSON within a second', async () => {
      const f = await client.fixture({ method: 'GET', path: '/live' });
      const stream = await openStream(`${server.running.url}${logPath(f.pid, '/stream')}`, f.token);
      try {
        expect(stream.res.status).toBe(200);
        expect(stream.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
        // subscribed once the first bytes arrived
        expect(await stream.until((t) => (t.length > 0 ? true : undefined), 5000)).toBe(true);

        for (const tag of ['one', 'two']) {
          const r = await client.mock(f.pid, 'GET', '/live', { query: `tag=${tag}` });
          expect(r.status).toBe(200);
          const answered = Date.now();
          const event = await stream.until((t) => stream.events(t).find((e) => e.query === `tag=${tag}`), 1000);
          expect(event, `event for ${tag}`).toBeDefined();
          expect(Date.now() - answered).toBeLessThan(1000);
          expect(event).toMatchObject({ method: 'GET', path: '/live', endpointId: f.eid, statusCode: 200 });
          expect(typeof event.id).toBe('string');
        }
        // another project's traffic does not show up
        const other = await client.fixture({ method: 'GET', path: '/live' });
        await client.mock(other.pid, 'GET', '/live', { query: 'tag=foreign' });
        await client.mock(f.pid, 'GET', '/live', { query: 'tag=three' });
        await stream.until((t) => stream.events(t).find((e) => e.query === 'tag=three'), 1000);
        const tags = stream.events(stream.text()).map((e) => e.query);
        expect(tags).toEqual(['tag=one', 'tag=two', 'tag=three']);
      } finally {
        stream.close();
      }
    });

    it('is tenant-scoped: another user gets 404 for the log and the stream, no token 401', async () => {
      const f = await client.fixture({ method: 'GET', path: '/private' });
      await client.mock(f.pid, 'GET', '/private');
      const other = await client.user();
      for (const p of [logPath(f.pid), logPath(f.pid, '?limit=5')]) {
        const r = await client.api('GET', p, undefined, other.token);
        expect([r.status, r.json?.error?.code]).toEqual([404, 'not_found']);
        expect(r.text).not.toContain('/private');
        const anon = await client.api('GET', p);
        expect([anon.status, anon.json?.error?.code]).toEqual([401, 'unauthorized']);
      }
      const s = await client.api('GET', logPath(f.pid, '/stream'), undefined, other.token);
      expect([s.status, s.json?.error?.code]).toEqual([404, 'not_found']);
      expect((await client.api('GET', logPath(f.pid, '/stream'))).status).toBe(401);
      // the owner still sees it
      expect((await client.api('GET', logPath(f.pid), undefined, f.token)).json).toHaveLength(1);
    });

    it('redacts Authorization, Proxy-Authorization and Cookie of mock requests, in the list and the stream', async () => {
      const f = await client.fixture({ method: 'GET', path: '/auth' });
      const stream = await openStream(`${server.running.url}${logPath(f.pid, '/stream')}`, f.token);
      try {
        await stream.until((t) => (t.length > 0 ? true : undefined), 5000);
        await client.mock(f.pid, 'GET', '/auth', {
          headers: {
            authorization: 'Bearer s3cr3t-token',
            'proxy-authorization': 'Basic cHJveHk6czNjcjN0',
            cookie: 'sid=s3cr3t-cookie',
            'x-kept': 'visible',
          },
        });
        const live = await stream.until((t) => stream.events(t)[0], 1000);
        const r = await client.api('GET', logPath(f.pid), undefined, f.token);
        for (const [what, entry, text] of [
          ['list', r.json[0], r.text],
          ['stream', live, JSON.stringify(live)],
        ] as const) {
          expect(entry.headers, what).toMatchObject({
            authorization: '[redacted]',
            'proxy-authorization': '[redacted]',
            cookie: '[redacted]',
            'x-kept': 'visible',
          });
          expect(text, what).not.toContain('s3cr3t');
          expect(text, what).not.toContain('cHJveHk6czNjcjN0');
        }
      } finally {
        stream.close();
      }
    });
  });
}
