/**
 * Durability against the built server as a child process on a SQLite file (docs/api.md "Rules": "The
 * position survives a restart"; nothing in a process is the only copy of anything a user would miss
 * after a restart).
 *
 * A write loop (projects, endpoints, rules, store_variable through mock calls, sequence advances)
 * runs with several concurrent clients while the process is SIGKILLed at random moments, 20 times,
 * and restarted. Afterwards: every write acknowledged with a 2xx is there and equal to what was
 * acknowledged, nothing is there that was never attempted, every record reads back whole, the
 * appended storage has each acknowledged value exactly once, the sequence counter is between the
 * acknowledged and the attempted advances, and `PRAGMA integrity_check` is ok.
 * Then: SIGTERM drains a request that is in flight (1 s step delay) and the process exits 0.
 *
 * Needs dist/main.js (`npm run build:server`; `npm test` builds).
 */
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freshDatabase, type TestDatabase } from '../helpers/databases.js';
import { ADMIN_TOKEN, type ChildServer, type HttpAnswer, spawnServer, type TestClient } from '../helpers/server.js';

const KILLS = 20;
const WORKERS = 4;

// biome-ignore lint/suspicious/noExplicitAny: records are compared as JSON
type Json = any;

/** The rule body a create sends for rule number n: everything about it follows from n. */
const ruleBody = (n: number) => ({
  name: `rule-${n}`,
  priority: n % 7,
  conditions: [{ target: 'query', key: 'k', operator: 'equals', value: `v${n}` }],
  response: {
    mode: n % 2 ? 'loop' : 'hold_last',
    steps: [{ statusCode: 200 + (n % 50), body: `b${n}`, count: 1 + (n % 3) }],
  },
  actions: [{ type: 'set_variable', name: 'x', value: `{{request.query.k}}-${n}` }],
});
const endpointBody = (n: number) => ({
  method: 'PUT',
  path: `/e/${n}/:id`,
  statusCode: 200 + (n % 100),
  responseBody: `{"n":${n},"id":"{{request.params.id}}"}`,
  contentType: 'application/json',
});

describe('durability: SIGKILL at random points, then restart', () => {
  let db: TestDatabase;
  let file = '';
  let child: ChildServer | null = null;
  let token = '';
  let base = { pid: '', storeEid: '', seqEid: '', seqRid: '' };

  // what was acknowledged (2xx) and what was attempted
  const acked = {
    projects: new Map<string, Json>(),
    endpoints: new Map<string, Json>(),
    rules: new Map<string, Json>(),
    stored: new Set<number>(),
    seq: 0,
  };
  const attempted = {
    projects: new Set<string>(),
    endpoints: new Set<string>(),
    rules: new Set<string>(),
    stored: new Set<number>(),
    seq: 0,
  };
  let counter = 0;

  beforeAll(async () => {
    db = await freshDatabase('sqlite');
    file = db.url.slice('sqlite:'.length);
  });
  afterAll(async () => {
    await child?.stop('SIGKILL');
    await db?.drop();
  });

  async function start(): Promise<TestClient> {
    child = await spawnServer(db.url);
    return child.client;
  }

  async function kill(): Promise<void> {
    const c = child;
    child = null;
    if (!c) return;
    await new Promise<void>((resolve) => {
      if (c.proc.exitCode !== null || c.proc.signalCode !== null) return resolve();
      c.proc.once('exit', () => resolve());
      c.proc.kill('SIGKILL');
    });
  }

  /** One random write; records it as attempted before sending and as acknowledged on a 2xx. */
  async function oneWrite(c: TestClient): Promise<void> {
    const n = ++counter;
    const pick = Math.random();
    const ok = (r: HttpAnswer, status: number) => r.status === status;
    if (pick < 0.15) {
      const name = `p-${n}`;
      attempted.projects.add(name);
      const r = await c.api('POST', '/api/projects', { name }, token);
      if (ok(r, 201)) acked.projects.set(r.json.id, r.json);
    } else if (pick < 0.35) {
      const pids = [base.pid, ...acked.projects.keys()];
      const pid = pids[n % pids.length];
      attempted.endpoints.add(`/e/${n}/:id`);
      const r = await c.api('POST', `/api/projects/${pid}/endpoints`, endpointBody(n), token);
      if (ok(r, 201)) acked.endpoints.set(r.json.id, r.json);
    } else if (pick < 0.55) {
      const eps = [...acked.endpoints.values()];
      if (eps.length === 0) return;
      const e = eps[n % eps.length];
      attempted.rules.add(`rule-${n}`);
      const r = await c.api('POST', `/api/projects/${e.projectId}/endpoints/${e.id}/rules`, ruleBody(n), token);
      if (ok(r, 201)) acked.rules.set(r.json.id, r.json);
    } else if (pick < 0.8) {
      attempted.stored.add(n);
      const r = await c.mock(base.pid, 'POST', '/store', { query: `v=${n}` });
      if (ok(r, 200)) acked.stored.add(n);
    } else {
      attempted.seq++;
      const r = await c.mock(base.pid, 'GET', '/seq');
      if (ok(r, 200)) acked.seq++;
    }
  }

  test(`${KILLS} SIGKILLs during a write loop lose no acknowledged write and corrupt nothing`, async () => {
    let c = await start();
    const u = await c.user();
    token = u.token;
    expect((await c.api('PATCH', `/api/admin/users/${u.id}`, { plan: 'business' }, ADMIN_TOKEN)).status).toBe(200);
    const p = await c.project(token, 'base');
    const store = await c.endpoint(token, p.id, { method: 'POST', path: '/store', responseBody: 'default' });
    await c.rule(token, p.id, store.id, {
      name: 'append',
      actions: [{ type: 'store_variable', name: 'log', value: '{{endpoint.log}},{{request.query.v}}' }],
      response: { steps: [{ statusCode: 200, body: 'stored' }] },
    });
    const seq = await c.endpoint(token, p.id, { method: 'GET', path: '/seq' });
    const seqRule = await c.rule(token, p.id, seq.id, {
      name: 'count',
      response: { steps: [{ statusCode: 200, count: 1_000_000 }] },
    });
    base = { pid: p.id, storeEid: store.id, seqEid: seq.id, seqRid: seqRule.id };

    for (let k = 0; k < KILLS; k++) {
      if (k > 0) c = await start();
      let running = true;
      const cc = c;
      const workers = Array.from({ length: WORKERS }, async () => {
        while (running) {
          try {
            await oneWrite(cc);
          } catch {
            // the process died under this request: attempted, not acknowledged
          }
        }
      });
      await new Promise((r) => setTimeout(r, 40 + Math.random() * 360));
      await kill();
      running = false;
      await Promise.all(workers);
    }

    // ----- verify on a fresh start
    c = await start();
    const get = async (path: string) => {
      const r = await c.api('GET', path, undefined, token);
      expect(r.status, `${path}: ${r.text.slice(0, 200)}`).toBe(200);
      return r.json;
    };
    // the loop did real work on every kind of write
    expect(acked.projects.size).toBeGreaterThan(0);
    expect(acked.endpoints.size).toBeGreaterThan(0);
    expect(acked.rules.size).toBeGreaterThan(0);
    expect(acked.stored.size).toBeGreaterThan(0);
    expect(acked.seq).toBeGreaterThan(0);

    const projects: Json[] = await get('/api/projects');
    const byId = new Map(projects.map((x) => [x.id, x]));
    for (const [id, rec] of acked.projects) expect(byId.get(id), `project ${rec.name}`).toEqual(rec);
    for (const x of projects) expect(x.name === 'base' || attempted.projects.has(x.name), x.name).toBe(true);

    let endpointsSeen = 0;
    let rulesSeen = 0;
    for (const proj of projects) {
      const eps: Json[] = await get(`/api/projects/${proj.id}/endpoints`);
      for (const e of eps) {
        if (proj.id === base.pid && (e.id === base.storeEid || e.id === base.seqEid)) continue;
        endpointsSeen++;
        expect(attempted.endpoints.has(e.path), e.path).toBe(true);
        // whole: every field as the create sent it
        const n = Number(e.path.split('/')[2]);
        expect(e).toMatchObject({ ...endpointBody(n), projectId: proj.id });
        if (acked.endpoints.has(e.id)) expect(e).toEqual(acked.endpoints.get(e.id));
        const full = await get(`/api/projects/${proj.id}/endpoints/${e.id}`);
        for (const r of full.rules) {
          rulesSeen++;
          expect(attempted.rules.has(r.name), r.name).toBe(true);
          const m = Number(r.name.split('-')[1]);
          expect(r).toMatchObject({ ...ruleBody(m), endpointId: e.id });
          if (acked.rules.has(r.id)) expect(r).toEqual(acked.rules.get(r.id));
        }
      }
    }
    // every acknowledged endpoint and rule was among those listed
    for (const [id, e] of acked.endpoints) {
      const r = await c.api('GET', `/api/projects/${e.projectId}/endpoints/${id}`, undefined, token);
      expect(r.status, e.path).toBe(200);
    }
    for (const [id, r] of acked.rules) {
      const e = await c.api(
        'GET',
        `/api/projects/${[...acked.endpoints.values()].find((x) => x.id === r.endpointId)?.projectId}/endpoints/${r.endpointId}/rules/${id}`,
        undefined,
        token,
      );
      expect(e.status, r.name).toBe(200);
    }
    expect(endpointsSeen).toBeGreaterThanOrEqual(acked.endpoints.size);
    expect(rulesSeen).toBeGreaterThanOrEqual(acked.rules.size);

    // appended storage: every acknowledged value exactly once, nothing never attempted
    const storage = await get(`/api/projects/${base.pid}/endpoints/${base.storeEid}/storage`);
    const values = String(storage.log ?? '')
      .split(',')
      .filter(Boolean)
      .map(Number);
    expect(new Set(values).size).toBe(values.length);
    for (const v of acked.stored) expect(values, `stored ${v}`).toContain(v);
    for (const v of values) expect(attempted.stored.has(v), `stored ${v} never sent`).toBe(true);

    // the sequence position survived every kill
    const rule = await get(`/api/projects/${base.pid}/endpoints/${base.seqEid}/rules/${base.seqRid}`);
    expect(rule.state.step).toBe(0);
    expect(rule.state.served).toBeGreaterThanOrEqual(acked.seq);
    expect(rule.state.served).toBeLessThanOrEqual(attempted.seq);

    // a clean stop, then the file itself
    expect(await child?.stop('SIGTERM')).toBe(0);
    child = null;
    const sqlite = new SqliteDatabase(file, { readonly: true });
    try {
      expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(sqlite.pragma('foreign_key_check')).toEqual([]);
    } finally {
      sqlite.close();
    }
    // each restart loads the whole server (≈0.5–1 s idle, several seconds on a loaded 2-core machine)
  }, 240_000);

  test('SIGTERM drains a request in flight (half its body sent, the rest 1 s later), then the process exits 0', async () => {
    const c = await start();
    const f = await c.fixture({ method: 'GET', path: '/slow' });
    await c.rule(f.token, f.pid, f.eid, {
      name: 'slow',
      response: { steps: [{ statusCode: 202, body: 'finally', chunks: { size: 4, intervalMs: 1000 } }] },
    });
    const proc = child?.proc;
    if (!proc) throw new Error('no child');
    const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    const res = await fetch(`${c.base}/m/${f.pid}/slow`, { signal: AbortSignal.timeout(15_000) });
    expect(res.status).toBe(202);
    const reader = (res.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    // the first chunk has arrived: the request is in flight for certain
    let text = (await reader.read()).value ?? '';
    expect(text).toBe('fina');
    proc.kill('SIGTERM');
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    expect(text).toBe('finally');
    expect(await exited).toBe(0);
    child = null;
  });
});
