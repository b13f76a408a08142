/**
 * Scale-out (docs/deploy.md, docs/api.md "Rules", docs/api.md "Mock traffic"): several real processes (dist/main.js) on one PostgreSQL
 * database behave as one service. Config changes reach the other process within 1 s, sequences
 * and endpoint storage are exact across processes, the request log is shared, a SIGKILLed process
 * loses no acknowledged state, and a database outage gives clean 503s and heals without a restart.
 * Needs TEST_DATABASE_URL (CI sets it; test/helpers/databases.ts refuses to run CI without it).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, PG_URL, type TestDatabase } from '../helpers/databases.js';
import { type ChildServer, type HttpAnswer, request, sleep, spawnServer } from '../helpers/server.js';

const RUN = PG_URL !== '' || process.env.CI === 'true';
/** docs/api.md "Mock traffic": a management change is in effect on every other process within 1 s. */
const PROPAGATION_MS = 1000;

/**
 * Repeats `attempt` until `ok` holds. Passes if an attempt started within `ms` of the call
 * succeeds; fails with the last answer otherwise.
 */
async function within<T>(ms: number, attempt: () => Promise<T>, ok: (t: T) => boolean, what: string): Promise<T> {
  const t0 = performance.now();
  for (;;) {
    const sent = performance.now();
    const last = await attempt();
    if (ok(last)) return last;
    if (sent - t0 > ms) {
      throw new Error(`${what}: not within ${ms} ms; last answer ${JSON.stringify(last)?.slice(0, 300)}`);
    }
    await sleep(20);
  }
}

const status = (r: HttpAnswer) => r.status;

/** An SSE reader: collects the `data:` entries of a stream until stopped. */
function openStream(url: string, token: string) {
  const ctl = new AbortController();
  // biome-ignore lint/suspicious/noExplicitAny: entries are inspected freely
  const entries: any[] = [];
  const ready = (async () => {
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: ctl.signal });
    if (res.status !== 200 || !res.body) throw new Error(`stream: ${res.status}`);
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    let buf = '';
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buf += dec.decode(value, { stream: true });
          let i = buf.indexOf('\n\n');
          while (i !== -1) {
            for (const line of buf.slice(0, i).split('\n')) {
              if (line.startsWith('data: ')) entries.push(JSON.parse(line.slice(6)));
            }
            buf = buf.slice(i + 2);
            i = buf.indexOf('\n\n');
          }
        }
      } catch {
        /* aborted */
      }
    })();
  })();
  return { ready, entries, close: () => ctl.abort() };
}

describe.skipIf(!RUN)('several processes on one PostgreSQL behave as one service', () => {
  let db: TestDatabase;
  let dbName: string;
  let admin: pg.Client;
  let a: ChildServer;
  let b: ChildServer;
  let token: string;
  const extra: ChildServer[] = [];

  beforeAll(async () => {
    db = await freshDatabase('postgres');
    dbName = new URL(db.url).pathname.slice(1);
    admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    [a, b] = await Promise.all([spawnServer(db.url), spawnServer(db.url)]);
    token = (await a.client.user()).token;
  });

  afterAll(async () => {
    await admin?.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`).catch(() => {});
    await Promise.all([a, b, ...extra].filter(Boolean).map((s) => s.stop('SIGKILL')));
    await admin?.end().catch(() => {});
    await db?.drop();
  });

  const api = (s: ChildServer, method: string, p: string, body?: unknown) => s.client.api(method, p, body, token);

  async function project(): Promise<string> {
    return (await a.client.project(token)).id;
  }

  /**
   * Waits until B's mock path serves the endpoint's rules as A wrote them. The API reads the
   * database, so a rule listed by B's API may not be in B's compiled project yet; a probe rule
   * (created last, first by priority, answering only `x-probe: 1`) on B's mock path says it is: a
   * configuration that has the probe has every rule made before it.
   */
  async function rulesOnB(pid: string, endpointId: string, method: string, path: string): Promise<void> {
    await a.client.rule(token, pid, endpointId, {
      priority: -1,
      conditions: [{ target: 'header', key: 'x-probe', operator: 'equals', value: '1' }],
      response: { steps: [{ statusCode: 299 }] },
    });
    await within(
      PROPAGATION_MS,
      () => b.client.mock(pid, method, path, { headers: { 'x-probe': '1' } }),
      (r) => r.status === 299,
      'rules on B',
    );
  }

  /** Backends of this database that hold a LISTEN connection (one per process). */
  /** a process's change feed, as its /healthz tells it */
  async function feedOf(s: ChildServer): Promise<{ listening: boolean; attempts: number; pending: boolean }> {
    const r = await request(`${s.base}/healthz?detail=1`);
    expect(r.status).toBe(200);
    return r.json.changeFeed;
  }

  async function listeners(): Promise<number[]> {
    const r = await admin.query(
      `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = 'mockyard-listener' ORDER BY pid`,
      [dbName],
    );
    return r.rows.map((x: { pid: number }) => x.pid);
  }

  it('a session made on one process is valid on the other', async () => {
    const me = await api(b, 'GET', '/api/auth/me');
    expect(me.status).toBe(200);
  });

  it('every management change made through A is in effect on B within 1 s', async () => {
    // create: a project and endpoint made through A answer on B
    const pid = await project();
    const ep = await a.client.endpoint(token, pid, { method: 'GET', path: '/thing', responseBody: 'v1' });
    const base = `/api/projects/${pid}/endpoints/${ep.id}`;
    await within(
      PROPAGATION_MS,
      () => b.client.mock(pid, 'GET', '/thing'),
      (r) => r.text === 'v1',
      'create',
    );

    // endpoint update (B has the project compiled and cached by now)
    expect((await api(a, 'PATCH', base, { statusCode: 203, responseBody: 'v2' })).status).toBe(200);
    await within(
      PROPAGATION_MS,
      () => b.client.mock(pid, 'GET', '/thing'),
      (r) => r.status === 203 && r.text === 'v2',
      'endpoint update',
    );

    // a new rule
    const rule = await a.client.rule(token, pid, ep.id, {
      conditions: [{ target: 'header', key: 'x-tier', operator: 'equals', value: 'vip' }],
      response: {
        mode: 'loop',
        steps: [
          { statusCode: 201, body: 'one' },
          { statusCode: 202, body: 'two' },
        ],
      },
    });
    const vip = { headers: { 'x-tier': 'vip' } };
    const first = await within(
      PROPAGATION_MS,
      () => b.client.mock(pid, 'GET', '/thing', vip),
      (r) => r.status === 201,
      'rule create',
    );
    expect(first.text).toBe('one');
    expect(status(await b.client.mock(pid, 'GET', '/thing', vip))).toBe(202);

    // reset: the sequence restarts for B's next request
    expect((await api(a, 'POST', `${base}/rules/${rule.id}/reset`)).status).toBe(200);
    expect(status(await b.client.mock(pid, 'GET', '/thing', vip))).toBe(201);

    // rule update: a changed condition
    expect(
      (
        await api(a, 'PATCH', `${base}/rules/${rule.id}`, {
          conditions: [{ target: 'header', key: 'x-tier', operator: 'equals', value: 'gold' }],
        })
      ).status,
    ).toBe(200);
    await within(
      PROPAGATION_MS,
      () => b.client.mock(pid, 'GET', '/thing', { headers: { 'x-tier': 'gold' } }),
      (r) => r.status === 202 || r.status === 201,
      'rule update',
    );
    expect(status(await b.client.mock(pid, 'GET', '/thing', vip))).toBe(203);

    // toggle off: B falls back to the default answer
    expect((await api(a, 'PATCH', `${base}/rules/${rule.id}`, { active: false })).status).toBe(200);
    await within(
      PROPAGATION_MS,
      () => b.client.mock(pid, 'GET', '/thing', { headers: { 'x-tier': 'gold' } }),
      (r) => r.status === 203,
      'rule toggle',
    );

    // rule delete, then endpoint delete, then project delete
    expect((await api(a, 'PATCH', `${base}/rules/${rule.id}`, { active: true })).status).toBe(200);
    await within(
      PROPAGATION_MS,
      () => b.client.mock(pid, 'GET', '/thing', { headers: { 'x-tier': 'gold' } }),
      (r) => r.status !== 203,
      'rule toggle on',
    );
    expect((await api(a, 'DELETE', `${base}/rules/${rule.id}`)).status).toBe(204);
    await within(
      PROPAGATION_MS,
      () => b.client.mock(pid, 'GET', '/thing', { headers: { 'x-tier': 'gold' } }),
      (r) => r.status === 203,
      'rule delete',
    );
    expect((await api(a, 'DELETE', base)).status).toBe(204);
    const gone = await within(
      PROPAGATION_MS,
      () => b.client.mock(pid, 'GET', '/thing'),
      (r) => r.status === 404,
      'endpoint delete',
    );
    expect(gone.json.error.code).toBe('mock_not_found');

    await a.client.endpoint(token, pid, { method: 'GET', path: '/other', responseBody: 'still' });
    await within(
      PROPAGATION_MS,
      () => b.client.mock(pid, 'GET', '/other'),
      (r) => r.text === 'still',
      'endpoint create',
    );
    expect((await api(a, 'DELETE', `/api/projects/${pid}`)).status).toBe(204);
    const projectGone = await within(
      PROPAGATION_MS,
      () => b.client.mock(pid, 'GET', '/other'),
      (r) => r.status === 404,
      'project delete',
    );
    expect(projectGone.json.error.code).toBe('mock_not_found');
    expect((await api(b, 'GET', `/api/projects/${pid}`)).status).toBe(404);
  });

  it('a storage clear through A is in effect on B at once', async () => {
    const pid = await project();
    const ep = await a.client.endpoint(token, pid, { method: 'GET', path: '/count' });
    await a.client.rule(token, pid, ep.id, {
      actions: [{ type: 'store_variable', name: 'n', value: '{{endpoint.n}}x' }],
      response: { steps: [{ statusCode: 200, body: '{{endpoint.n}}' }] },
    });
    await within(
      PROPAGATION_MS,
      () => b.client.mock(pid, 'GET', '/count'),
      (r) => r.text === 'x',
      'rule on B',
    );
    expect((await b.client.mock(pid, 'GET', '/count')).text).toBe('xx');
    expect((await a.client.mock(pid, 'GET', '/count')).text).toBe('xxx');
    expect((await api(a, 'DELETE', `/api/projects/${pid}/endpoints/${ep.id}/storage`)).status).toBe(204);
    expect((await b.client.mock(pid, 'GET', '/count')).text).toBe('x');
    expect((await api(b, 'GET', `/api/projects/${pid}/endpoints/${ep.id}/storage`)).json).toEqual({ n: 'x' });
  });

  it('a change that missed its notification is picked up by the version check', async () => {
    const pid = await project();
    const ep = await a.client.endpoint(token, pid, { method: 'GET', path: '/quiet', statusCode: 200 });
    for (const s of [a, b]) {
      await within(
        PROPAGATION_MS,
        () => s.client.mock(pid, 'GET', '/quiet'),
        (r) => r.status === 200,
        'cached',
      );
    }
    // a write straight to the database: no NOTIFY, only the project's version says it changed
    const direct = new pg.Client({ connectionString: db.url });
    await direct.connect();
    try {
      await direct.query('BEGIN');
      await direct.query('UPDATE endpoints SET status_code = 207 WHERE id = $1', [ep.id]);
      await direct.query('UPDATE projects SET version = version + 1 WHERE id = $1', [pid]);
      await direct.query('COMMIT');
    } finally {
      await direct.end();
    }
    // the version check (every 500 ms) alone keeps the contract's 1 s
    const since = performance.now();
    for (const s of [a, b]) {
      const left = PROPAGATION_MS - (performance.now() - since);
      await within(
        left,
        () => s.client.mock(pid, 'GET', '/quiet'),
        (r) => r.status === 207,
        'version check',
      );
    }
  });

  it('the LISTEN connection comes back after the database drops it', async () => {
    const before = await within(10_000, listeners, (l) => l.length === 2, 'two listeners');
    await admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [before]);
    const after = await within(
      15_000,
      listeners,
      (l) => l.length === 2 && l.every((p) => !before.includes(p)),
      'listeners reconnected',
    );
    expect(after).toHaveLength(2);

    const pid = await project();
    const ep = await a.client.endpoint(token, pid, { method: 'GET', path: '/r', responseBody: 'one' });
    await within(
      PROPAGATION_MS,
      () => b.client.mock(pid, 'GET', '/r'),
      (r) => r.text === 'one',
      'create',
    );
    expect((await api(a, 'PATCH', `/api/projects/${pid}/endpoints/${ep.id}`, { responseBody: 'two' })).status).toBe(
      200,
    );
    await within(
      PROPAGATION_MS,
      () => b.client.mock(pid, 'GET', '/r'),
      (r) => r.text === 'two',
      'update after reconnect',
    );
  });

  it('300 concurrent requests split across both processes follow the sequence exactly', async () => {
    const pid = await project();
    const ep = await a.client.endpoint(token, pid, { method: 'GET', path: '/seq' });
    const rule = await a.client.rule(token, pid, ep.id, {
      response: {
        mode: 'loop',
        steps: [
          { statusCode: 500, count: 2 },
          { statusCode: 200, count: 1 },
        ],
      },
    });
    const before = await api(a, 'GET', `/api/projects/${pid}/endpoints/${ep.id}/rules/${rule.id}`);
    expect(before.json.state).toEqual({ step: 0, served: 0 });
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? a : b).client.mock(pid, 'GET', '/seq')),
    );
    const tally = { 500: 0, 200: 0, other: 0 };
    const perProcess = { a: 0, b: 0 };
    answers.forEach((r, i) => {
      if (r.status === 500 || r.status === 200) tally[r.status]++;
      else tally.other++;
      perProcess[i % 2 === 0 ? 'a' : 'b']++;
    });
    expect(tally).toEqual({ 500: 200, 200: 100, other: 0 });
    expect(perProcess).toEqual({ a: 150, b: 150 });
    // 300 hits = 100 whole passes of 500, 500, 200: the next request starts a new pass
    const after = await api(b, 'GET', `/api/projects/${pid}/endpoints/${ep.id}/rules/${rule.id}`);
    expect(after.json.state).toEqual({ step: 0, served: 0 });
    expect(status(await b.client.mock(pid, 'GET', '/seq'))).toBe(500);
  });

  it('store_variable appends from both processes lose nothing', async () => {
    const pid = await project();
    const ep = await a.client.endpoint(token, pid, { method: 'POST', path: '/append' });
    await a.client.rule(token, pid, ep.id, {
      actions: [{ type: 'store_variable', name: 'log', value: '{{endpoint.log}}{{request.query.i}},' }],
    });
    await rulesOnB(pid, ep.id, 'POST', '/append');
    const n = 120;
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        (i % 2 === 0 ? a : b).client.mock(pid, 'POST', '/append', { query: `i=${i}` }),
      ),
    );
    expect(answers.filter((r) => r.status !== 200)).toEqual([]);
    const storage = await api(b, 'GET', `/api/projects/${pid}/endpoints/${ep.id}/storage`);
    const got = (storage.json.log as string).split(',').filter(Boolean).map(Number);
    expect(got).toHaveLength(n);
    expect([...got].sort((x, y) => x - y)).toEqual(Array.from({ length: n }, (_, i) => i));
  });

  it('creates into 20 sessions at once on both processes: every session has its own items, none lost', async () => {
    const pid = await project();
    await api(a, 'POST', `/api/projects/${pid}/collections`, { name: 'carts', seed: [{ id: 'seed' }] });
    await api(a, 'POST', `/api/projects/${pid}/resources`, { collection: 'carts', path: '/carts' });
    await within(
      PROPAGATION_MS,
      () => b.client.mock(pid, 'GET', '/carts'),
      (r) => r.status === 200,
      'resource on B',
    );
    const n = 400;
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        (i % 2 === 0 ? a : b).client.mock(pid, 'POST', '/carts', {
          headers: { 'content-type': 'application/json', 'x-mockyard-session': `s${i % 20}` },
          body: JSON.stringify({ n: i }),
        }),
      ),
    );
    expect(answers.filter((r) => r.status !== 201).map((r) => r.status)).toEqual([]);
    for (let k = 0; k < 20; k++) {
      const list = await (k % 2 ? a : b).client.mock(pid, 'GET', '/carts', {
        headers: { 'x-mockyard-session': `s${k}` },
      });
      const ns = (list.json as { n?: number }[]).filter((x) => x.n !== undefined).map((x) => x.n as number);
      expect([...ns].sort((x, y) => x - y)).toEqual(Array.from({ length: n / 20 }, (_, j) => k + 20 * j));
      expect(list.headers.get('x-total-count')).toBe(String(n / 20 + 1));
    }
  });

  it('200 concurrent collection creates split across both processes give 200 distinct items, none lost', async () => {
    const pid = await project();
    expect(
      (await api(a, 'POST', `/api/projects/${pid}/collections`, { name: 'orders', seed: [{ id: 'seed' }] })).status,
    ).toBe(201);
    expect(
      (await api(a, 'POST', `/api/projects/${pid}/resources`, { collection: 'orders', path: '/orders' })).status,
    ).toBe(201);
    await within(
      PROPAGATION_MS,
      () => b.client.mock(pid, 'GET', '/orders'),
      (r) => r.status === 200 && Array.isArray(r.json),
      'resource visible on B',
    );
    const n = 200;
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        (i % 2 === 0 ? a : b).client.mock(pid, 'POST', '/orders', {
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ n: i }),
        }),
      ),
    );
    expect(answers.filter((r) => r.status !== 201).map((r) => r.status)).toEqual([]);
    const ids = new Set(answers.map((r) => r.json.id));
    expect(ids.size).toBe(n);
    const list = await b.client.mock(pid, 'GET', '/orders');
    expect(list.headers.get('x-total-count')).toBe(String(n + 1));
    const ns = (list.json as { n?: number }[]).filter((x) => x.n !== undefined).map((x) => x.n as number);
    expect([...ns].sort((x, y) => x - y)).toEqual(Array.from({ length: n }, (_, i) => i));
    // a project-scoped scenario value written from both processes is the last one, seen by both
    const cart = await a.client.endpoint(token, pid, { method: 'POST', path: '/cart' });
    await a.client.rule(token, pid, cart.id, {
      actions: [{ type: 'store_variable', scope: 'project', name: 'log', value: '{{project.log}}x' }],
    });
    await rulesOnB(pid, cart.id, 'POST', '/cart');
    await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? a : b).client.mock(pid, 'POST', '/cart')));
    expect((await api(b, 'GET', `/api/projects/${pid}/storage`)).json.log).toBe('x'.repeat(60));
  });

  it('a request served by B is in the request log and the live stream of A within 1 s', async () => {
    const pid = await project();
    await a.client.endpoint(token, pid, { method: 'GET', path: '/logged', statusCode: 202 });
    await within(
      PROPAGATION_MS,
      () => b.client.mock(pid, 'GET', '/logged'),
      (r) => r.status === 202,
      'endpoint on B',
    );
    const stream = openStream(`${a.base}/api/projects/${pid}/requests/stream`, token);
    try {
      await stream.ready;
      for (let k = 0; k < 3; k++) {
        const marker = `m${k}-${Date.now()}`;
        const r = await b.client.mock(pid, 'GET', '/logged', { query: `marker=${marker}` });
        expect(r.status).toBe(202);
        await within(
          PROPAGATION_MS,
          async () => stream.entries.filter((e) => e.query === `marker=${marker}`),
          (found) => found.length === 1,
          'SSE on A',
        );
        const listed = await within(
          PROPAGATION_MS,
          () => api(a, 'GET', `/api/projects/${pid}/requests?limit=10`),
          // biome-ignore lint/suspicious/noExplicitAny: log entries
          (l) => l.status === 200 && l.json.some((e: any) => e.query === `marker=${marker}`),
          'log on A',
        );
        // biome-ignore lint/suspicious/noExplicitAny: log entries
        const entry = listed.json.find((e: any) => e.query === `marker=${marker}`);
        expect(entry).toMatchObject({ method: 'GET', path: '/logged', statusCode: 202 });
      }
      // and A's own traffic once each on A's stream (not twice: local push + poll)
      const mine = `own-${Date.now()}`;
      await a.client.mock(pid, 'GET', '/logged', { query: `marker=${mine}` });
      // a barrier: B's next request reaches A's stream through the same shared-log poll that would
      // bring A's own entry a second time, so once it is there, a duplicate would be too
      const after = `after-${Date.now()}`;
      await b.client.mock(pid, 'GET', '/logged', { query: `marker=${after}` });
      await within(
        PROPAGATION_MS,
        async () => stream.entries.filter((e) => e.query === `marker=${after}`),
        (found) => found.length === 1,
        'barrier on A',
      );
      expect(stream.entries.filter((e) => e.query === `marker=${mine}`)).toHaveLength(1);
    } finally {
      stream.close();
    }
  });

  it('a process killed with SIGKILL under load loses no acknowledged write', async () => {
    const c = await spawnServer(db.url);
    extra.push(c);
    const pid = await project();
    const ep = await a.client.endpoint(token, pid, { method: 'POST', path: '/work' });
    const rule = await a.client.rule(token, pid, ep.id, {
      actions: [{ type: 'store_variable', name: 'log', value: '{{endpoint.log}}{{request.query.i}},' }],
      // hold_last on one long step: `served` is the number of hits
      response: { mode: 'hold_last', steps: [{ statusCode: 200, body: '{{request.query.i}}', count: 1_000_000 }] },
    });
    await within(
      PROPAGATION_MS,
      () => api(c, 'GET', `/api/projects/${pid}/endpoints/${ep.id}/rules`),
      (r) => r.status === 200 && r.json.length === 1,
      'rule visible on C',
    );

    let next = 0;
    let killed = false;
    const acked: number[] = [];
    const ackedByC: number[] = [];
    const sent: number[] = [];
    const worker = async (s: ChildServer) => {
      for (let k = 0; k < 400 && !killed; k++) {
        const i = next++;
        sent.push(i);
        try {
          const r = await s.client.mock(pid, 'POST', '/work', { query: `i=${i}`, timeoutMs: 10_000 });
          if (r.status >= 200 && r.status < 300) {
            expect(r.text).toBe(String(i));
            acked.push(i);
            if (s === c) ackedByC.push(i);
          }
        } catch {
          if (s === c) return; // the process is gone
        }
      }
    };
    const workers = [...Array.from({ length: 12 }, () => worker(c)), ...Array.from({ length: 4 }, () => worker(a))];
    await within(
      30_000,
      async () => ackedByC.length,
      (n) => n >= 60,
      'load on C',
    );
    c.proc.kill('SIGKILL');
    await new Promise<void>((r) =>
      c.proc.exitCode !== null || c.proc.signalCode !== null ? r() : c.proc.once('exit', () => r()),
    );
    killed = true;
    await Promise.all(workers);
    expect(ackedByC.length).toBeGreaterThanOrEqual(60);

    // every acknowledged append and hit is there, seen through another process
    const storage = await within(
      10_000,
      () => api(a, 'GET', `/api/projects/${pid}/endpoints/${ep.id}/storage`),
      (r) => r.status === 200,
      'storage',
    );
    const logged = (storage.json.log as string).split(',').filter(Boolean).map(Number);
    expect(new Set(logged).size).toBe(logged.length);
    const missing = acked.filter((i) => !logged.includes(i));
    expect(missing).toEqual([]);
    const state = (await api(a, 'GET', `/api/projects/${pid}/endpoints/${ep.id}/rules/${rule.id}`)).json.state;
    expect(state.step).toBe(0);
    expect(state.served).toBeGreaterThanOrEqual(acked.length);
    expect(state.served).toBeLessThanOrEqual(sent.length);

    // nothing the dead process held (a storage lock) blocks the others
    const after = await b.client.mock(pid, 'POST', '/work', { query: 'i=999999', timeoutMs: 15_000 });
    expect(after.status).toBe(200);
    const final = await api(a, 'GET', `/api/projects/${pid}/endpoints/${ep.id}/storage`);
    expect((final.json.log as string).split(',')).toContain('999999');
  });

  it('a database outage gives 503s, not hangs or crashes, and heals without a restart', async () => {
    const cached = await project();
    await a.client.endpoint(token, cached, { method: 'GET', path: '/static', responseBody: 'ok' });
    const seq = await project();
    const ep = await a.client.endpoint(token, seq, { method: 'GET', path: '/seq' });
    await a.client.rule(token, seq, ep.id, { response: { steps: [{ statusCode: 201 }, { statusCode: 202 }] } });
    for (const s of [a, b]) {
      await within(
        PROPAGATION_MS,
        () => s.client.mock(seq, 'GET', '/seq'),
        (r) => r.status === 201 || r.status === 202,
        'seq',
      );
      expect((await s.client.mock(cached, 'GET', '/static')).text).toBe('ok');
    }
    const untouched = await project(); // never requested: not compiled anywhere
    await a.client.endpoint(token, untouched, { method: 'GET', path: '/cold' });

    const tried = new Map<ChildServer, number>();
    for (const s of [a, b]) tried.set(s, (await feedOf(s)).attempts);
    await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS false`);
    try {
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [dbName]);
      for (const s of [a, b]) {
        const t = { timeoutMs: 15_000 };
        const ready = await request(`${s.base}/readyz`, t);
        expect(ready.status).toBe(503);
        expect(ready.json.error.code).toBe('unavailable');
        expect((await request(`${s.base}/healthz`, t)).status).toBe(200);

        const list = await request(`${s.base}/api/projects`, { ...t, headers: { authorization: `Bearer ${token}` } });
        expect(list.status).toBe(503);
        expect(list.json.error.code).toBe('unavailable');

        const burst = await Promise.all([
          ...Array.from({ length: 10 }, () => s.client.mock(seq, 'GET', '/seq', t)),
          s.client.mock(untouched, 'GET', '/cold', t),
        ]);
        for (const r of burst) {
          expect(r.status).toBe(503);
          expect(r.json.error.code).toBe('unavailable');
          expect(r.headers.get('access-control-allow-origin')).toBe('*');
        }
        // a compiled endpoint without rules needs no database and keeps answering
        const still = await s.client.mock(cached, 'GET', '/static', t);
        expect(still.status).toBe(200);
        expect(s.proc.exitCode).toBeNull();
        expect(s.proc.signalCode).toBeNull();
      }
      // several reconnect attempts of each change feed while connections are refused: none left a listener
      for (const [s, before] of tried) {
        await within(
          15_000,
          () => feedOf(s),
          (f) => f.attempts >= before + 2,
          'reconnect attempts during the outage',
        );
      }
      expect(await listeners()).toEqual([]);
    } finally {
      await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`);
    }

    for (const s of [a, b]) {
      await within(
        15_000,
        () => request(`${s.base}/readyz`),
        (r) => r.status === 200,
        'ready again',
      );
      await within(
        5000,
        () => s.client.mock(seq, 'GET', '/seq'),
        (r) => r.status === 201 || r.status === 202,
        'mock again',
      );
      expect((await api(s, 'GET', '/api/projects')).status).toBe(200);
    }
    // both listeners are back (one each: failed attempts left no extra ones behind), and changes
    // propagate within 1 s again
    await within(15_000, listeners, (l) => l.length === 2, 'listeners back');
    // and no attempt is left in flight or waiting that could make a third
    for (const s of [a, b])
      await within(
        5000,
        () => feedOf(s),
        (f) => f.listening && !f.pending,
        'change feed settled',
      );
    expect(await listeners()).toHaveLength(2);
    expect((await api(a, 'PATCH', `/api/projects/${seq}/endpoints/${ep.id}`, { path: '/moved' })).status).toBe(200);
    await within(
      PROPAGATION_MS,
      () => b.client.mock(seq, 'GET', '/moved'),
      (r) => r.status === 201 || r.status === 202,
      'propagation after outage',
    );
    expect(a.proc.exitCode).toBeNull();
    expect(b.proc.exitCode).toBeNull();
  });
});
