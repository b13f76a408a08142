/**
 * Security II (issue 15), part two: what one request can cost (docs/limits.md), and the abuse paths of
 * accounts and streams. Each test is one attack of the red team's report, over HTTP against the real
 * server, bounded and on loopback only.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { refBomb } from '../fixtures/ref-bomb.js';
import { DIALECTS } from '../helpers/databases.js';
import { expectError } from '../helpers/expect.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const poll = async <T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 5000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** An event stream that records when it ended. */
async function openStream(url: string, token: string) {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: abort.signal });
  const state = { ended: false, text: '' };
  const reader = res.body?.getReader();
  const dec = new TextDecoder();
  const pump = (async () => {
    try {
      for (;;) {
        const chunk = await reader?.read();
        if (!chunk || chunk.done) break;
        state.text += dec.decode(chunk.value, { stream: true });
      }
    } catch {
      /* aborted */
    }
    state.ended = true;
  })();
  return { res, state, close: () => abort.abort(), pump };
}

describe.each(DIALECTS)('output and state caps (%s)', (dialect) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(dialect, {
      caps: {
        renderChars: 1024 * 1024,
        storedValueBytes: 64 * 1024,
        storedNames: 5,
        sessionsPerProject: 3,
        templateIterations: 10_000,
        wsMessageBytes: 1024 * 1024,
        socketsPerProject: 1000,
        wsIdleMs: 600_000,
      },
      maxProjectsPerUser: 3,
      maxEndpointsPerProject: 4,
      importTimeoutMs: 1500,
    });
  });
  afterAll(() => s.close());

  test('attack 2: set_variable doubling {{vars.a}} stops at 1 MiB: the action fails, the service keeps answering', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'GET', path: '/bomb', responseBody: '{{vars.a}}' });
    const double = { type: 'set_variable', name: 'a', value: '{{vars.a}}{{vars.a}}' };
    await c.rule(f.token, f.pid, f.eid, {
      actions: [{ type: 'set_variable', name: 'a', value: 'x'.repeat(1000) }, ...Array(19).fill(double)],
    });
    const started = performance.now();
    const r = await c.mock(f.pid, 'GET', '/bomb');
    const ms = performance.now() - started;
    expect(r.status).toBe(200);
    // 1000 × 2^10 = 1,024,000 characters is the last value under the cap
    expect(r.text.length).toBe(1000 * 2 ** 10);
    expect(ms).toBeLessThan(5000); // a fault bound: the unbounded version ran for 10 s and 256 MiB
    const [entry] = (await c.api('GET', `/api/projects/${f.pid}/requests?limit=1`, undefined, f.token)).json;
    const failed = entry.actions.filter((a: { ok: boolean }) => !a.ok);
    expect(failed.length).toBe(9);
    for (const a of failed) expect(a.error).toMatch(/^render_too_large/);
    const health = await c.api('GET', '/healthz');
    expect(health.status).toBe(200);
  });

  test('attack 2b: an answer that renders past the cap is 500 render_too_large, and the log says why', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'POST', path: '/echo', responseBody: '{{request.body}}{{request.body}}' });
    const body = 'b'.repeat(600 * 1024);
    const r = await c.mock(f.pid, 'POST', '/echo', { body });
    expectError(r, 500, 'render_too_large');
    expect(r.headers.get('content-security-policy')).toContain('sandbox');
    const step = await c.endpoint(f.token, f.pid, { method: 'POST', path: '/step' });
    await c.rule(f.token, f.pid, step.id, {
      response: { steps: [{ statusCode: 200, body: 'ok', headers: { 'x-big': '{{request.body}}{{request.body}}' } }] },
    });
    expectError(await c.mock(f.pid, 'POST', '/step', { body }), 500, 'render_too_large');
    const log = (await c.api('GET', `/api/projects/${f.pid}/requests?limit=2`, undefined, f.token)).json;
    expect(log.map((e: { statusCode: number; error?: string }) => [e.statusCode, e.error])).toEqual([
      [500, 'render_too_large'],
      [500, 'render_too_large'],
    ]);
    // under the cap it is served
    expect((await c.mock(f.pid, 'POST', '/echo', { body: 'ab' })).text).toBe('abab');
  });

  test('attack 2c: a stored value over 64 KiB is refused (value_too_large) and nothing is stored; names per session are capped', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'POST', path: '/store' });
    await c.rule(f.token, f.pid, f.eid, {
      actions: [
        { type: 'store_variable', name: 'last', value: '{{request.body}}' },
        { type: 'store_variable', name: 'log', value: '{{endpoint.log}}{{request.body}}' },
      ],
    });
    const storage = () => c.api('GET', `/api/projects/${f.pid}/endpoints/${f.eid}/storage`, undefined, f.token);
    const big = 'v'.repeat(64 * 1024 + 1);
    await c.mock(f.pid, 'POST', '/store', { body: big });
    let [entry] = (await c.api('GET', `/api/projects/${f.pid}/requests?limit=1`, undefined, f.token)).json;
    expect(entry.actions.map((a: { ok: boolean; error?: string }) => a.error?.split(':')[0])).toEqual([
      'value_too_large',
      'value_too_large',
    ]);
    expect((await storage()).json).toEqual({});
    // an append grows until the cap, then stops growing: eight 10 KiB posts keep at most 64 KiB
    for (let i = 0; i < 8; i++) await c.mock(f.pid, 'POST', '/store', { body: 'x'.repeat(10 * 1024) });
    const kept = (await storage()).json;
    expect(kept.log.length).toBe(60 * 1024);
    [entry] = (await c.api('GET', `/api/projects/${f.pid}/requests?limit=1`, undefined, f.token)).json;
    expect(entry.actions[1].error).toMatch(/^value_too_large/);
  });

  test('attack 2d: stored names per endpoint and session are capped (5 here)', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'GET', path: '/names/:n' });
    await c.rule(f.token, f.pid, f.eid, {
      actions: [
        { type: 'store_variable', name: 'a', value: '1' },
        { type: 'store_variable', name: 'b', value: '1' },
        { type: 'store_variable', name: 'c', value: '1' },
        { type: 'store_variable', name: 'd', value: '1' },
        { type: 'store_variable', name: 'e', value: '1' },
        { type: 'store_variable', name: 'f', value: '1' },
        { type: 'store_variable', name: 'a', value: '2' },
      ],
    });
    await c.mock(f.pid, 'GET', '/names/1');
    const [entry] = (await c.api('GET', `/api/projects/${f.pid}/requests?limit=1`, undefined, f.token)).json;
    expect(entry.actions.map((a: { ok: boolean }) => a.ok)).toEqual([true, true, true, true, true, false, true]);
    expect(entry.actions[5].error).toMatch(/^too_many_names/);
    const stored = (await c.api('GET', `/api/projects/${f.pid}/endpoints/${f.eid}/storage`, undefined, f.token)).json;
    expect(stored).toEqual({ a: '2', b: '1', c: '1', d: '1', e: '1' });
    // another session has its own five
    await c.mock(f.pid, 'GET', '/names/1', { headers: { 'x-mockyard-session': 's1' } });
    const s1 = await c.api('GET', `/api/projects/${f.pid}/endpoints/${f.eid}/storage?session=s1`, undefined, f.token);
    expect(Object.keys(s1.json)).toHaveLength(5);
  });

  test('attack 2e: random X-Mockyard-Session values are capped per project: the least recently used is forgotten', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'GET', path: '/s' });
    await c.rule(f.token, f.pid, f.eid, {
      actions: [{ type: 'store_variable', name: 'who', value: '{{request.headers.x-mockyard-session}}' }],
    });
    const read = async (session: string) =>
      (await c.api('GET', `/api/projects/${f.pid}/endpoints/${f.eid}/storage?session=${session}`, undefined, f.token))
        .json;
    for (const id of ['one', 'two', 'three'])
      await c.mock(f.pid, 'GET', '/s', { headers: { 'x-mockyard-session': id } });
    // 'one' used again: 'two' is now the least recently used
    await c.mock(f.pid, 'GET', '/s', { headers: { 'x-mockyard-session': 'one' } });
    await c.mock(f.pid, 'GET', '/s', { headers: { 'x-mockyard-session': 'four' } });
    expect(
      await poll(
        () => read('two'),
        (v) => Object.keys(v).length === 0,
      ),
    ).toEqual({});
    expect(await read('one')).toEqual({ who: 'one' });
    expect(await read('three')).toEqual({ who: 'three' });
    expect(await read('four')).toEqual({ who: 'four' });
    // a flood of random sessions leaves at most 3 with state
    for (let i = 0; i < 30; i++) await c.mock(f.pid, 'GET', '/s', { headers: { 'x-mockyard-session': `r${i}` } });
    const sessions = await poll(
      async () => (await c.api('GET', `/api/projects/${f.pid}/endpoints/${f.eid}/sessions`, undefined, f.token)).json,
      (v: { session: string }[]) => v.length <= 3,
    );
    expect(sessions.map((x: { session: string }) => x.session).sort()).toEqual(['r27', 'r28', 'r29']);
    // the shared state ('' session) is never evicted
    await c.mock(f.pid, 'GET', '/s');
    expect(await read('')).toEqual({ who: '' });
  });

  test('attack 4e: an OpenAPI document of nested $refs fails with 422 within its budget; the service goes on', async () => {
    const c = s.client;
    const f = await c.fixture();
    const bomb = refBomb();
    expect(JSON.stringify(bomb).length).toBeLessThan(6000);
    const started = Date.now();
    const r = await c.api('POST', `/api/projects/${f.pid}/import/openapi`, bomb, f.token);
    // 422, not 503: the worker's 1.5 s CPU budget stopped it, before the wall budget (30 × that); the worker
    // runs at nice 19, so on a machine busy with other test files its 1.5 s of CPU can take a few seconds
    expectError(r, 422, 'document_too_complex');
    expect(Date.now() - started).toBeLessThan(1500 + 8000);
    expect((await c.api('GET', '/healthz')).status).toBe(200);
    const fine = {
      openapi: '3.0.0',
      info: { title: 'ok', version: '1' },
      paths: { '/ok': { get: { responses: { '200': { description: 'ok' } } } } },
    };
    expect((await c.api('POST', `/api/projects/${f.pid}/import/openapi`, fine, f.token)).status).toBe(200);
  });

  test('review: the project and endpoint limits hold under concurrent creates', async () => {
    const c = s.client;
    const u = await c.user();
    const projects = await Promise.all(
      Array.from({ length: 12 }, (_, i) => c.api('POST', '/api/projects', { name: `p${i}` }, u.token)),
    );
    expect(projects.filter((r) => r.status === 201)).toHaveLength(3);
    for (const r of projects.filter((x) => x.status !== 201)) expectError(r, 422, 'limit_exceeded');
    const pid = projects.find((r) => r.status === 201)?.json.id;
    const endpoints = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        c.api('POST', `/api/projects/${pid}/endpoints`, { method: 'GET', path: `/e${i}` }, u.token),
      ),
    );
    expect(endpoints.filter((r) => r.status === 201)).toHaveLength(4);
    expect((await c.api('GET', `/api/projects/${pid}/endpoints`, undefined, u.token)).json).toHaveLength(4);
  });
});

describe('accounts and streams', () => {
  let s: TestServer;
  beforeAll(async () => {
    // 6 attempts a minute per address, so 5 per email (the floor)
    s = await startTestServer('sqlite', { authRatePerMinute: 60, sessionTtlHours: 2 / 3600 });
  });
  afterAll(() => s.close());

  test('attack 4a: padding or re-casing the email does not spread login attempts over several counters', async () => {
    const c = s.client;
    const victim = await c.user();
    const spellings = [
      victim.email,
      ` ${victim.email}`,
      `${victim.email} `,
      `  ${victim.email.toUpperCase()}  `,
      `\t${victim.email}`,
    ];
    const answers = [];
    for (let i = 0; i < 24; i++) {
      const email = spellings[i % spellings.length];
      answers.push((await c.api('POST', '/api/auth/login', { email, password: 'wrong password' })).status);
    }
    // per email: 20 a minute here (a third of 60), the registration included; every spelling
    // counts against the one account
    expect(
      answers.filter((x) => x === 401),
      String(answers),
    ).toHaveLength(19);
    expect(answers.slice(19)).toEqual([429, 429, 429, 429, 429]);
  });

  test('attack 4b: a request-log stream ends within a second of logout, and when its token expires', async () => {
    const c = s.client;
    const f = await c.fixture({ method: 'GET', path: '/live' });
    const login = await c.api('POST', '/api/auth/login', { email: f.email, password: f.password });
    const stream = await openStream(`${s.running.url}/api/projects/${f.pid}/requests/stream`, login.json.token);
    expect(stream.res.status).toBe(200);
    await poll(
      async () => stream.state.text,
      (t) => t.length > 0,
    );
    expect(stream.state.ended).toBe(false);
    await c.api('POST', '/api/auth/logout', undefined, login.json.token);
    const loggedOut = Date.now();
    await poll(
      async () => stream.state.ended,
      (e) => e,
      3000,
    );
    expect(stream.state.ended).toBe(true);
    expect(Date.now() - loggedOut).toBeLessThan(1500);
    // nothing more is delivered on it
    await c.mock(f.pid, 'GET', '/live');
    expect(stream.state.text).not.toContain('data:');

    // expiry: this server's tokens live 2 s
    const fresh = await c.api('POST', '/api/auth/login', { email: f.email, password: f.password });
    const issued = Date.now();
    const s2 = await openStream(`${s.running.url}/api/projects/${f.pid}/requests/stream`, fresh.json.token);
    expect(s2.res.status).toBe(200);
    await poll(
      async () => s2.state.ended,
      (e) => e,
      6000,
    );
    expect(s2.state.ended).toBe(true);
    expect(Date.now() - issued).toBeLessThan(2000 + 1500);
  });
});
