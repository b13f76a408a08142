/**
 * The Store's cascades and hot path on every database in DIALECTS: deletes that take their children,
 * the atomic counters and storage updates (also across two Store instances on one database, as two
 * processes would be), the request log, and the mock configuration with its project versions.
 * Records and helpers: test/helpers/store-records.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, freshDatabase, type TestDatabase } from '../../test/helpers/databases.js';
import { codeOf, ep, logEntry, rule, storeHelpers } from '../../test/helpers/store-records.js';
import { openStore, type Store } from './index.js';

describe.each(DIALECTS)('Store hot path on %s', (dialect) => {
  let db: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    db = await freshDatabase(dialect);
    store = await openStore(db.url);
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });
  const { owned, count } = storeHelpers(() => store);

  describe('cascades', () => {
    async function full() {
      const { u, p, e } = await owned();
      const r = await store.rules.create(u.id, p.id, e.id, rule('r'), 3);
      await store.hot.hit(r.id, '');
      await store.hot.hit(r.id, 'session-a');
      await store.hot.updateStorage({ kind: 'endpoint', id: e.id }, '', () => [['k', 'v']]);
      await store.hot.appendLog([{ projectId: p.id, entry: logEntry(1) }]);
      return { u, p, e, r };
    }

    it('deleting a project removes its endpoints, rules, hit counters, storage and request log', async () => {
      const { u, p, e, r } = await full();
      const keep = await full();
      expect(await count('request_log', 'project_id', p.id)).toBe(1);
      await store.projects.delete(u.id, p.id);
      expect(await store.projects.get(u.id, p.id)).toBeNull();
      expect(await count('endpoints', 'project_id', p.id)).toBe(0);
      expect(await count('rules', 'project_id', p.id)).toBe(0);
      expect(await count('rule_hits', 'rule_id', r.id)).toBe(0);
      expect(await count('storage', 'endpoint_id', e.id)).toBe(0);
      expect(await count('request_log', 'project_id', p.id)).toBe(0);
      expect(await store.mockConfig.load(p.id)).toBeNull();
      // log entries of a deleted project are dropped, not written
      await store.hot.appendLog([{ projectId: p.id, entry: logEntry(2) }]);
      expect(await count('request_log', 'project_id', p.id)).toBe(0);
      // the other project is whole
      expect(await count('rules', 'project_id', keep.p.id)).toBe(1);
      expect(await count('rule_hits', 'rule_id', keep.r.id)).toBe(2);
      expect(await count('storage', 'endpoint_id', keep.e.id)).toBe(1);
      expect(await count('request_log', 'project_id', keep.p.id)).toBe(1);
      // in a batch with a live project's entries, only the deleted project's are dropped
      await store.hot.appendLog([
        { projectId: keep.p.id, entry: logEntry(3) },
        { projectId: p.id, entry: logEntry(4) },
        { projectId: keep.p.id, entry: logEntry(5) },
      ]);
      expect(await count('request_log', 'project_id', p.id)).toBe(0);
      expect((await store.logs.list(keep.u.id, keep.p.id, 10)).map((x) => x.path)).toEqual(['/n/5', '/n/3', '/n/1']);
    });

    it('deleting an endpoint removes its rules, hit counters and storage', async () => {
      const { u, p, e, r } = await full();
      await store.endpoints.delete(u.id, p.id, e.id);
      expect(await count('rules', 'endpoint_id', e.id)).toBe(0);
      expect(await count('rule_hits', 'rule_id', r.id)).toBe(0);
      expect(await count('storage', 'endpoint_id', e.id)).toBe(0);
      expect(await store.projects.get(u.id, p.id)).not.toBeNull();
    });

    it('deleting a rule removes its hit counters', async () => {
      const { u, p, e, r } = await full();
      await store.rules.delete(u.id, p.id, e.id, r.id);
      expect(await count('rule_hits', 'rule_id', r.id)).toBe(0);
      expect(await count('storage', 'endpoint_id', e.id)).toBe(1);
    });
  });

  describe('hot path', () => {
    it('hot.hit: 500 concurrent hits give exactly 1..500', async () => {
      const { u, p, e } = await owned();
      const r = await store.rules.create(u.id, p.id, e.id, rule('hot'), 3);
      const got = await Promise.all(Array.from({ length: 500 }, () => store.hot.hit(r.id, '')));
      expect([...got].sort((x, y) => x - y)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
      expect((await store.rules.get(u.id, p.id, e.id, r.id))?.hits).toBe(500);
    });

    it('hot.hit: hits of one turn are counted in the order they were asked; a missing rule fails alone', async () => {
      const { u, p, e } = await owned();
      const a = await store.rules.create(u.id, p.id, e.id, rule('a'), 3);
      const b = await store.rules.create(u.id, p.id, e.id, rule('b'), 3);
      await store.hot.hit(a.id, '');
      // one event-loop turn: a, b and a rule that does not exist (a foreign-key failure)
      const asked = [a.id, b.id, a.id, 'no-such-rule', a.id, b.id].map((id) =>
        Promise.resolve(store.hot.hit(id, '')).then(
          (n) => n,
          () => 'failed',
        ),
      );
      expect(await Promise.all(asked)).toEqual([2, 1, 3, 'failed', 4, 2]);
      expect((await store.rules.get(u.id, p.id, e.id, a.id))?.hits).toBe(4);
    });

    it("hot.hit: a turn of one rule's hits alone (one statement, no transaction on SQLite) counts them in order; a lone missing rule fails and the next turn counts on", async () => {
      const { u, p, e } = await owned();
      const a = await store.rules.create(u.id, p.id, e.id, rule('a'), 3);
      expect(await Promise.all([1, 2, 3].map(() => store.hot.hit(a.id, '')))).toEqual([1, 2, 3]);
      await expect(Promise.resolve(store.hot.hit('no-such-rule', ''))).rejects.toThrow();
      expect(await Promise.all([store.hot.hit(a.id, ''), store.hot.hit(a.id, 'other')])).toEqual([4, 1]);
      expect(await store.hot.hit(a.id, '')).toBe(5);
      expect((await store.rules.get(u.id, p.id, e.id, a.id))?.hits).toBe(5);
    });

    it('hot.hit counts per session and across two Store instances exactly', async () => {
      const other = await openStore(db.url);
      try {
        const { u, p, e } = await owned();
        const r = await store.rules.create(u.id, p.id, e.id, rule('hot'), 3);
        const got = await Promise.all(
          Array.from({ length: 200 }, (_, i) => (i % 2 ? other : store).hot.hit(r.id, 'shared')),
        );
        expect([...got].sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
        expect(await store.hot.hit(r.id, 'fresh')).toBe(1);
        expect(await store.hot.hit(r.id, '')).toBe(1);
        expect((await store.rules.get(u.id, p.id, e.id, r.id, 'shared'))?.hits).toBe(200);
      } finally {
        await other.close();
      }
    });

    it('hot.updateStorage: a concurrent append pattern loses nothing, also across two Store instances', async () => {
      const other = await openStore(db.url);
      try {
        const { u, p, e } = await owned();
        const append = (s: Store, i: number) =>
          s.hot.updateStorage({ kind: 'endpoint', id: e.id }, '', (cur) => {
            const list = cur.get('list') ?? '';
            const n = Number(cur.get('n') ?? 0);
            return [
              ['list', list ? `${list},${i}` : String(i)],
              ['n', String(n + 1)],
            ];
          });
        const results = await Promise.all(Array.from({ length: 120 }, (_, i) => append(i % 3 ? store : other, i)));
        // each call saw the values it wrote
        for (const m of results) expect(m.get('list')?.split(',').length).toBe(Number(m.get('n')));
        const final = await store.storage.get(u.id, p.id, e.id);
        expect(final.n).toBe('120');
        const items = final.list.split(',').map(Number);
        expect(items).toHaveLength(120);
        expect([...items].sort((x, y) => x - y)).toEqual(Array.from({ length: 120 }, (_, i) => i));
        expect(Object.fromEntries(await store.hot.storage({ kind: 'endpoint', id: e.id }, ''))).toEqual({
          list: final.list,
          n: '120',
        });
      } finally {
        await other.close();
      }
    });

    it('hot.updateStorage: a write that throws stores nothing and fails alone among writes asked together', async () => {
      const { e } = await owned('/throws');
      const owner = { kind: 'endpoint' as const, id: e.id };
      const bump = () => store.hot.updateStorage(owner, '', (cur) => [['n', String(Number(cur.get('n') ?? 0) + 1)]]);
      const asked = [
        bump(),
        bump(),
        store.hot.updateStorage(owner, '', (cur) => {
          if (cur.size >= 0) throw new Error('refused');
          return [];
        }),
        bump(),
      ];
      const settled = await Promise.allSettled(asked);
      expect(settled.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      const seen = settled.map((r) => (r.status === 'fulfilled' ? r.value.get('n') : (r.reason as Error).message));
      expect(seen).toEqual(['1', '2', 'refused', '3']);
      expect(Object.fromEntries(await store.hot.storage(owner, ''))).toEqual({ n: '3' });
    });

    it('hot.updateStorageInto: each waiter hears its own storage once the write is committed (another Store reads it then)', async () => {
      const { e } = await owned('/into');
      const owner = { kind: 'endpoint' as const, id: e.id };
      const other = await openStore(db.url);
      try {
        const heard: Promise<{ mine: string; committed: string | undefined } | string>[] = [];
        const ask = (write: (cur: Map<string, string>) => [string, string | null][]) => {
          heard.push(
            new Promise((resolve) =>
              store.hot.updateStorageInto(owner, '', write, {
                // what another connection sees at the moment the waiter hears
                resolve: (m) =>
                  resolve(
                    Promise.resolve(other.hot.storage(owner, '')).then((seen) => ({
                      mine: m.get('n') ?? '',
                      committed: seen.get('n'),
                    })),
                  ),
                reject: (err) => resolve(`error ${(err as Error).message}`),
              }),
            ),
          );
        };
        const bump = (cur: Map<string, string>): [string, string | null][] => [
          ['n', String(Number(cur.get('n') ?? 0) + 1)],
        ];
        ask(bump);
        ask(() => {
          throw new Error('refused');
        });
        ask(bump);
        const got = await Promise.all(heard);
        expect(got[1]).toBe('error refused');
        const [a, c] = [got[0], got[2]] as { mine: string; committed: string | undefined }[];
        expect([a.mine, c.mine]).toEqual(['1', '2']);
        // the batch is one commit: by the time any waiter hears, the last value is durable
        expect([a.committed, c.committed]).toEqual(['2', '2']);
      } finally {
        await other.close();
      }
    });

    it('hot.updateStorage: writes of one turn that set and delete the same names keep the last of each, per storage and session', async () => {
      const { e } = await owned('/last-wins');
      const owner = { kind: 'endpoint' as const, id: e.id };
      await store.hot.updateStorage(owner, '', () => [['gone', 'x']]);
      const set = (session: string, name: string, value: string | null) =>
        store.hot.updateStorage(owner, session, () => [[name, value]]);
      const seen = await Promise.all([
        set('', 'a', '1'),
        set('', 'gone', null),
        set('s', 'a', 'other session'),
        set('', 'a', null),
        set('', 'a', '2'),
        set('', 'b', '1'),
        set('', 'b', null),
      ]);
      expect(seen.map((m) => Object.fromEntries(m))).toEqual([
        { gone: 'x', a: '1' },
        { a: '1' },
        { a: 'other session' },
        {},
        { a: '2' },
        { a: '2', b: '1' },
        { a: '2' },
      ]);
      expect(Object.fromEntries(await store.hot.storage(owner, ''))).toEqual({ a: '2' });
      expect(Object.fromEntries(await store.hot.storage(owner, 's'))).toEqual({ a: 'other session' });
    });

    it('hot.updateStorage: writes of a turn that cannot be stored all fail, and the next turn writes afresh', async () => {
      const { e } = await owned('/missing-owner');
      const missing = { kind: 'endpoint' as const, id: 'no-such-endpoint' };
      const asked = [1, 2].map((n) => store.hot.updateStorage(missing, '', () => [['n', String(n)]]));
      const fine = store.hot.updateStorage({ kind: 'endpoint', id: e.id }, '', () => [['n', 'ok']]);
      const settled = await Promise.allSettled([...asked, fine]);
      expect(settled.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
      await expect(store.hot.updateStorage(missing, '', () => [['n', '3']])).rejects.toThrow();
      expect(Object.fromEntries(await store.hot.storage(missing, ''))).toEqual({});
      expect(Object.fromEntries(await store.hot.storage({ kind: 'endpoint', id: e.id }, ''))).toEqual({ n: 'ok' });
    });

    it('storage is per endpoint and per session; storage.clear empties one session or all', async () => {
      const { u, p, e } = await owned('/one');
      const e2 = await store.endpoints.create(u.id, p.id, ep('GET', '/two'));
      await store.hot.updateStorage({ kind: 'endpoint', id: e.id }, '', () => [['a', '1']]);
      await store.hot.updateStorage({ kind: 'endpoint', id: e.id }, 's1', () => [['a', 's']]);
      await store.hot.updateStorage({ kind: 'endpoint', id: e2.id }, '', () => [['b', '2']]);
      expect(await store.storage.get(u.id, p.id, e.id)).toEqual({ a: '1' });
      expect(await store.storage.get(u.id, p.id, e.id, 's1')).toEqual({ a: 's' });
      expect(await store.storage.get(u.id, p.id, e2.id)).toEqual({ b: '2' });
      await store.storage.clear(u.id, p.id, e.id, 's1');
      expect(await store.storage.get(u.id, p.id, e.id, 's1')).toEqual({});
      expect(await store.storage.get(u.id, p.id, e.id)).toEqual({ a: '1' });
      await store.hot.updateStorage({ kind: 'endpoint', id: e.id }, 's1', () => [['a', 's']]);
      await store.storage.clear(u.id, p.id, e.id);
      expect(await store.storage.get(u.id, p.id, e.id)).toEqual({});
      expect(await store.storage.get(u.id, p.id, e.id, 's1')).toEqual({});
      expect(await store.storage.get(u.id, p.id, e2.id)).toEqual({ b: '2' });
    });
  });

  describe('request log', () => {
    it('appends, lists newest first with a limit, and is owner-filtered', async () => {
      const { u, p } = await owned();
      const other = await owned();
      const entries = Array.from({ length: 12 }, (_, i) => logEntry(i));
      await store.hot.appendLog(entries.slice(0, 5).map((entry) => ({ projectId: p.id, entry })));
      await store.hot.appendLog([
        ...entries.slice(5).map((entry) => ({ projectId: p.id, entry })),
        { projectId: other.p.id, entry: logEntry(99) },
      ]);
      const all = await store.logs.list(u.id, p.id, 100);
      expect(all.map((x) => x.id)).toEqual(entries.map((x) => x.id).reverse());
      expect(all[0]).toMatchObject({ ...entries[11], seq: expect.any(Number) });
      const three = await store.logs.list(u.id, p.id, 3);
      expect(three.map((x) => x.id)).toEqual([entries[11].id, entries[10].id, entries[9].id]);
      const after = await store.logs.list(u.id, p.id, 100, three[1].seq);
      expect(after.map((x) => x.id)).toEqual([entries[11].id]);
      expect(await codeOf(store.logs.list(other.u.id, p.id, 10))).toBe('not_found');
      expect((await store.logs.list(other.u.id, other.p.id, 10)).map((x) => x.path)).toEqual(['/n/99']);
    });

    it('logs.trim keeps the newest N of one project only', async () => {
      const { u, p } = await owned();
      const other = await owned();
      const entries = Array.from({ length: 20 }, (_, i) => logEntry(i));
      await store.hot.appendLog(entries.map((entry) => ({ projectId: p.id, entry })));
      await store.hot.appendLog([0, 1, 2].map((i) => ({ projectId: other.p.id, entry: logEntry(i) })));
      await store.logs.trim(p.id, 7);
      const left = await store.logs.list(u.id, p.id, 100);
      expect(left.map((x) => x.id)).toEqual(
        entries
          .slice(13)
          .map((x) => x.id)
          .reverse(),
      );
      await store.logs.trim(p.id, 7); // nothing more to trim
      expect(await store.logs.list(u.id, p.id, 100)).toHaveLength(7);
      expect(await store.logs.list(other.u.id, other.p.id, 100)).toHaveLength(3);
    });

    it('logs.since and logs.maxSeq see every project’s entries in order', async () => {
      const { p } = await owned();
      const before = await store.logs.maxSeq();
      const e1 = logEntry(1);
      const e2 = logEntry(2);
      await store.hot.appendLog([
        { projectId: p.id, entry: e1 },
        { projectId: p.id, entry: e2 },
      ]);
      const since = await store.logs.since(before, 100);
      expect(since.map((x) => x.entry.id)).toEqual([e1.id, e2.id]);
      expect(since.every((x) => x.projectId === p.id)).toBe(true);
      expect(await store.logs.maxSeq()).toBe(since[1].seq);
    });
  });

  describe('mock configuration', () => {
    it('mockConfig.load answers the project, its endpoints and rules in order, and a version', async () => {
      const { u, p, e } = await owned('/a');
      const e2 = await store.endpoints.create(u.id, p.id, ep('POST', '/b'));
      const r1 = await store.rules.create(u.id, p.id, e.id, rule('b', { priority: 2 }), 25);
      const r2 = await store.rules.create(u.id, p.id, e2.id, rule('a', { priority: 1 }), 25);
      const r3 = await store.rules.create(u.id, p.id, e.id, rule('c', { priority: 2 }), 25);
      const cfg = await store.mockConfig.load(p.id);
      expect(cfg?.project).toEqual(await store.projects.get(u.id, p.id));
      expect(cfg?.endpoints.map((x) => x.id)).toEqual([e.id, e2.id]);
      expect(cfg?.rules.map((x) => x.id)).toEqual([r2.id, r1.id, r3.id]);
      expect(cfg?.rules[1]).toMatchObject({ endpointId: e.id, projectId: p.id, name: 'b' });
      expect(typeof cfg?.version).toBe('number');
      expect(cfg?.version).toBe(await store.mockConfig.version(p.id));
      expect(await store.mockConfig.load('nope')).toBeNull();
    });

    it('projectVersions increase with every configuration change, and a change event is emitted', async () => {
      const { u, p, e } = await owned();
      const other = await owned();
      const events: string[] = [];
      const onChange = (id: string) => events.push(id);
      store.on('change', onChange);
      try {
        const seen: number[] = [];
        const version = async () => {
          const v = (await store.mockConfig.versions([p.id]))?.get(p.id) as number;
          seen.push(v);
          return v;
        };
        const steps: [string, () => Promise<unknown>][] = [
          ['create endpoint', () => store.endpoints.create(u.id, p.id, ep('POST', '/new'))],
          ['update endpoint', () => store.endpoints.update(u.id, p.id, e.id, ep('GET', '/x', { statusCode: 500 }))],
          ['create rule', () => store.rules.create(u.id, p.id, e.id, rule('r'), 3)],
          [
            'update rule',
            async () => {
              const r = (await store.rules.list(u.id, p.id, e.id))[0];
              return store.rules.update(u.id, p.id, e.id, r.id, rule('r', { active: false }), false);
            },
          ],
          [
            'delete rule',
            async () => {
              const r = (await store.rules.list(u.id, p.id, e.id))[0];
              return store.rules.delete(u.id, p.id, e.id, r.id);
            },
          ],
          ['rename project', () => store.projects.update(u.id, p.id, { name: 'renamed' })],
          ['delete endpoint', () => store.endpoints.delete(u.id, p.id, e.id)],
        ];
        let last = await version();
        for (const [name, change] of steps) {
          events.length = 0;
          await change();
          const v = await version();
          expect({ name, increased: v > last }).toEqual({ name, increased: true });
          expect({ name, events }).toEqual({ name, events: [p.id] });
          last = v;
        }
        // resets and storage clears are announced too
        const r = await store.rules.create(u.id, p.id, (await store.endpoints.list(u.id, p.id))[0].id, rule('z'), 3);
        events.length = 0;
        await store.rules.reset(u.id, p.id, r.endpointId, r.id);
        await store.storage.clear(u.id, p.id, r.endpointId);
        expect(events).toEqual([p.id, p.id]);
        // another project's version did not move; unknown ids are left out
        const versions = await store.mockConfig.versions([other.p.id, 'nope']);
        expect(versions.has('nope')).toBe(false);
        expect(versions.get(other.p.id)).toBe(await store.mockConfig.version(other.p.id));
        const otherBefore = versions.get(other.p.id);
        await store.endpoints.create(u.id, p.id, ep('GET', '/more'));
        expect(await store.mockConfig.version(other.p.id)).toBe(otherBefore);
        expect(await store.mockConfig.versions([])).toEqual(new Map());
      } finally {
        store.off('change', onChange);
      }
    });

    it('a version seen by a second Store instance moves with the first one’s changes', async () => {
      const other = await openStore(db.url);
      try {
        const { u, p } = await owned();
        const v1 = await other.mockConfig.version(p.id);
        await store.endpoints.create(u.id, p.id, ep('DELETE', '/y'));
        const v2 = await other.mockConfig.version(p.id);
        expect(v2).toBeGreaterThan(v1 as number);
        expect((await other.mockConfig.load(p.id))?.endpoints).toHaveLength(2);
      } finally {
        await other.close();
      }
    });
  });
});
