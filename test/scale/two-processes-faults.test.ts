/**
 * Scale-out under faults (docs/deploy.md): the LISTEN connection comes back after the database drops it,
 * a process killed with SIGKILL under load loses no acknowledged write, and a database outage gives
 * clean 503s, not hangs or crashes, and heals without a restart. Needs TEST_DATABASE_URL.
 */
import { describe, expect, it } from 'vitest';
import { type ChildServer, request, spawnServer } from '../helpers/server.js';
import {
  a,
  admin,
  api,
  b,
  db,
  dbName,
  extra,
  feedOf,
  listeners,
  PROPAGATION_MS,
  project,
  RUN,
  token,
  within,
} from '../helpers/two-processes.js';

describe.skipIf(!RUN)('several processes on one PostgreSQL survive faults', () => {
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
