/**
 * Collection commands through the store's hot state, on each database: commands asked together
 * (and from two Store instances at once) are exact and kept in the order asked, a command that
 * breaks fails alone, and on PostgreSQL the commands that wait for a collection's transaction go
 * into one transaction together (the group commit of postgres.ts).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, freshDatabase, type TestDatabase } from '../../../test/helpers/databases.js';
import { seedBase } from '../../domain/collections.js';
import { openStore, type Store } from '../index.js';
import { COLLECTION_CAPS, type CollectionCommand, type CollectionRef, type CollectionResult } from './collections.js';
import { PostgresHot } from './postgres.js';
import { SqliteHot } from './sqlite.js';

const CASES = DIALECTS.flatMap((d) => [[d, 'full copies'] as const, [d, 'copies on write'] as const]);

describe.each(CASES)('collection commands on %s, %s', (dialect, copies) => {
  let db: TestDatabase;
  let store: Store;
  let other: Store;
  beforeAll(async () => {
    db = await freshDatabase(dialect);
    store = await openStore(db.url);
    other = await openStore(db.url);
  });
  afterAll(async () => {
    await other?.close();
    await store?.close();
    await db?.drop();
  });

  /** a project with a collection `items` seeded with two items */
  async function collection(): Promise<Omit<CollectionRef, 'session'>> {
    const u = await store.users.create(`c-${randomBytes(5).toString('hex')}@example.test`, 'h');
    const p = await store.projects.create(u.id, { name: 'p' });
    const seed = [
      { id: 's1', name: 'seed one' },
      { id: 's2', name: 'seed two' },
    ];
    await store.collections.create(u.id, p.id, 'items', { idField: 'id', seed });
    const base = copies === 'copies on write' ? seedBase(seed, 'id') : null;
    return { projectId: p.id, name: 'items', idField: 'id', seed, base };
  }
  const run = (s: Store, ref: CollectionRef, cmd: CollectionCommand) => s.hot.collection(ref, cmd);
  const ids = (r: CollectionResult) => (r.kind === 'items' ? r.raw.map((x) => JSON.parse(x).id as string) : []);

  it('creates asked together from two processes are all kept, each id once, in the order each process asked', async () => {
    const ref = { ...(await collection()), session: '' };
    const asked = Array.from({ length: 90 }, (_, i) =>
      run(i % 3 ? store : other, ref, { op: 'create', item: { id: `n${i}`, name: `item ${i}` } }),
    );
    const results = await Promise.all(asked);
    expect(results.every((r) => r.kind === 'item' && r.created === true)).toBe(true);
    const list = ids(await run(store, ref, { op: 'list' }));
    expect(list.slice(0, 2)).toEqual(['s1', 's2']);
    expect(list).toHaveLength(92);
    expect(new Set(list).size).toBe(92);
    // one process's commands keep their order among themselves
    const mine = list.filter((id) => id.startsWith('n') && Number(id.slice(1)) % 3 !== 0);
    expect(mine).toEqual(
      Array.from({ length: 90 }, (_, i) => i)
        .filter((i) => i % 3)
        .map((i) => `n${i}`),
    );
    expect(await run(other, ref, { op: 'count' })).toEqual({ kind: 'count', count: 92 });
  });

  it('a command that writes an item gives back its JSON as stored (raw), creates asked together too', async () => {
    const ref = { ...(await collection()), session: 'raw' };
    const stored = async (id: string) => {
      const list = await run(store, ref, { op: 'list' });
      return list.kind === 'items' ? list.raw.find((x) => JSON.parse(x).id === id) : undefined;
    };
    const results = await Promise.all([
      run(store, ref, { op: 'create', item: { name: 'no id', tags: ['a'] } }),
      run(store, ref, { op: 'create', item: { id: 'given', price: 12.5, 'é "q"': 'x\ny' } }),
    ]);
    const same = async (r: CollectionResult) => {
      if (r.kind !== 'item') throw new Error(`not an item: ${r.kind}`);
      expect(r.raw).toBe(JSON.stringify(r.item));
      expect(await stored(String(r.item.id))).toBe(r.raw);
    };
    for (const r of results) await same(r);
    await same(await run(store, ref, { op: 'replace', id: 's1', item: { name: 'whole' } }));
    const updated = await run(store, ref, { op: 'update', id: 'given', patch: { price: 13 } });
    await same(updated);
    expect(updated).toMatchObject({ item: { id: 'given', price: 13, 'é "q"': 'x\ny' } });
  });

  it('a create with an id that is taken is a conflict, also when the first one was asked in the same batch', async () => {
    const ref = { ...(await collection()), session: 'sess-a' };
    const [a, b, c] = await Promise.all([
      run(store, ref, { op: 'create', item: { id: 'dup', v: 1 } }),
      run(store, ref, { op: 'create', item: { id: 'dup', v: 2 } }),
      run(store, ref, { op: 'create', item: { id: 's1', v: 3 } }),
    ]);
    expect(a).toMatchObject({ kind: 'item', created: true, item: { id: 'dup', v: 1 } });
    expect(b).toEqual({ kind: 'conflict' });
    expect(c).toEqual({ kind: 'conflict' });
    expect(await run(store, ref, { op: 'get', id: 'dup' })).toEqual({ kind: 'item', item: { id: 'dup', v: 1 } });
    // the session's copy is its own: the unsessioned collection has only the seed
    expect(ids(await run(store, { ...ref, session: '' }, { op: 'list' }))).toEqual(['s1', 's2']);
  });

  it('creates asked together with an id taken before: that one is a conflict, the others are written and counted', async () => {
    const ref = { ...(await collection()), session: 'sess-b' };
    await run(store, ref, { op: 'create', item: { id: 'x1', v: 0 } });
    const results = await Promise.all(
      ['x1', 'x2', 'x3', 'x4'].map((id, v) => run(store, ref, { op: 'create', item: { id, v } })),
    );
    expect(results.map((r) => r.kind)).toEqual(['conflict', 'item', 'item', 'item']);
    expect(ids(await run(store, ref, { op: 'list' }))).toEqual(['s1', 's2', 'x1', 'x2', 'x3', 'x4']);
    expect(await run(other, ref, { op: 'count' })).toEqual({ kind: 'count', count: 6 });
    expect(await run(store, ref, { op: 'get', id: 'x1' })).toEqual({ kind: 'item', item: { id: 'x1', v: 0 } });
  });

  it('hot.collectionInto: each waiter hears its own result once committed; one whose resolve throws hears it through reject', async () => {
    const ref = { ...(await collection()), session: 'into' };
    const heard: string[] = [];
    const seen: Promise<CollectionResult>[] = [];
    const waiter = (name: string, throws = false) => ({
      resolve: (r: CollectionResult) => {
        heard.push(`${name}: ${r.kind === 'item' ? String(r.item.id) : r.kind}`);
        // what another Store sees at the moment the waiter hears
        seen.push(run(other, ref, { op: 'get', id: name }));
        if (throws) throw new Error(`${name}'s own failure`);
      },
      reject: (err: unknown) => heard.push(`${name} failed: ${(err as Error).message}`),
    });
    store.hot.collectionInto(ref, { op: 'create', item: { id: 'i1' } }, waiter('i1'));
    store.hot.collectionInto(ref, { op: 'create', item: { id: 'i2', n: 1n } }, waiter('i2'));
    store.hot.collectionInto(ref, { op: 'create', item: { id: 'i3' } }, waiter('i3', true));
    store.hot.collectionInto(ref, { op: 'create', item: { id: 'i1' } }, waiter('i4'));
    // nothing is heard during the call itself (the steps' Deferred contract)
    expect(heard).toEqual([]);
    await expect.poll(() => heard.length).toBe(5);
    expect(heard.filter((h) => h.startsWith('i2'))).toEqual([expect.stringMatching(/^i2 failed: .*BigInt/)]);
    expect(heard.filter((h) => !h.startsWith('i2'))).toEqual([
      'i1: i1',
      'i3: i3',
      "i3 failed: i3's own failure",
      'i4: conflict',
    ]);
    expect((await Promise.all(seen)).map((r) => r.kind)).toEqual(['item', 'item', 'missing']);
    expect(ids(await run(store, ref, { op: 'list' }))).toEqual(['s1', 's2', 'i1', 'i3']);
  });

  it('a command that throws fails alone among commands asked together; the others are written', async () => {
    const ref = { ...(await collection()), session: '' };
    // SQLite runs a commit's commands without a savepoint each, and again with them once one throws
    const sqlite = store.hot instanceof SqliteHot ? store.hot : null;
    expect(sqlite === null).toBe(dialect !== 'sqlite');
    const before = sqlite?.carefulCommits ?? 0;
    await Promise.all(['c1', 'c2', 'c3'].map((id) => run(store, ref, { op: 'create', item: { id } })));
    if (sqlite) expect(sqlite.carefulCommits).toBe(before);
    const asked = [
      run(store, ref, { op: 'create', item: { id: 'a1' } }),
      run(store, ref, { op: 'update', id: 's1', patch: { name: 'patched' } }),
      // JSON.stringify throws on a BigInt: the command breaks after the batch's first statements ran
      run(store, ref, { op: 'create', item: { id: 'bad', n: 1n } }),
      run(store, ref, { op: 'delete', id: 's2' }),
      run(store, ref, { op: 'create', item: { id: 'a2' } }),
    ];
    const settled = await Promise.allSettled(asked);
    expect(settled.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    if (sqlite) expect(sqlite.carefulCommits).toBe(before + 1);
    // each written once, the commands that ran before the one that threw too
    expect(ids(await run(store, ref, { op: 'list' }))).toEqual(['s1', 'c1', 'c2', 'c3', 'a1', 'a2']);
    expect(await run(store, ref, { op: 'count' })).toEqual({ kind: 'count', count: 6 });
    expect(await run(store, ref, { op: 'get', id: 's1' })).toEqual({
      kind: 'item',
      item: { id: 's1', name: 'patched' },
    });
  });

  it.runIf(dialect === 'postgres')('commands waiting for a collection share its next transaction', async () => {
    const hot = store.hot as PostgresHot;
    expect(hot).toBeInstanceOf(PostgresHot);
    const ref = { ...(await collection()), session: '' };
    const before = { tx: hot.joinedTransactions, work: hot.joinedWork };
    // all asked in one turn, before the first transaction holds its lock: they join it, up to 256
    await Promise.all(
      Array.from({ length: 300 }, (_, i) => run(store, ref, { op: 'update', id: 's1', patch: { n: i } })),
    );
    expect(hot.joinedWork - before.work).toBe(300);
    expect(hot.joinedTransactions - before.tx).toBe(2);
    expect(await run(store, ref, { op: 'get', id: 's1' })).toMatchObject({ item: { n: 299 } });
  });

  it.runIf(dialect === 'postgres')(
    'creates of many sessions asked together go into one transaction, in order',
    async () => {
      const hot = store.hot as PostgresHot;
      const base = await collection();
      // the sessions' copies exist (their first command made them); then 300 creates over 30 sessions,
      // whose names carry quotes, backslashes and more (the batch's keys are literals in its SQL)
      const odd = [(i: number) => `o'brien\\${i}`, (i: number) => `batch "${i}" ∑ $$ --`, (i: number) => `batch-${i}`];
      const sessions = Array.from({ length: 30 }, (_, i) => odd[i % 3](i));
      await Promise.all(sessions.map((session) => run(store, { ...base, session }, { op: 'count' })));
      const before = { batches: hot.creates.batches, batched: hot.creates.batched, oneTrip: hot.creates.oneTrip };
      const results = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          run(store, { ...base, session: sessions[i % 30] }, { op: 'create', item: { id: `c${i}` } }),
        ),
      );
      expect(results.every((r) => r.kind === 'item' && r.created)).toBe(true);
      expect(hot.creates.batched - before.batched).toBe(300);
      expect(hot.creates.batches - before.batches).toBe(1);
      expect(hot.creates.oneTrip - before.oneTrip).toBe(300);
      for (const [k, session] of sessions.entries()) {
        const mine = Array.from({ length: 10 }, (_, j) => `c${k + 30 * j}`);
        expect(ids(await run(store, { ...base, session }, { op: 'list' }))).toEqual(['s1', 's2', ...mine]);
        expect(await run(other, { ...base, session }, { op: 'count' })).toEqual({ kind: 'count', count: 12 });
      }
    },
  );

  it.runIf(dialect === 'postgres')(
    "a batch's sessions each answer as one by one: no copy yet, at the cap, an id taken, a stale touch, another seed",
    async () => {
      const hot = store.hot as PostgresHot;
      const base = await collection();
      const pool = new pg.Pool({ connectionString: db.url, max: 1 });
      const session = (name: string) => ({ ...base, session: name });
      const row = async (name: string) =>
        (
          await pool.query(
            'SELECT items, bytes, touched_at, base FROM collection_sessions WHERE project_id = $1 AND session = $2',
            [base.projectId, name],
          )
        ).rows[0] as { items: string; bytes: string; touched_at: string; base: string } | undefined;
      try {
        // copies for four of the five sessions; one is at the item cap less one, one was touched long
        // ago, one has an id taken, one's copy was written over another seed (copies on write only)
        for (const name of ['full', 'taken', 'stale', 'reseeded'])
          await run(store, session(name), { op: 'create', item: { id: 'first' } });
        const at = (n: number, name: string) =>
          pool.query('UPDATE collection_sessions SET items = $1 WHERE project_id = $2 AND session = $3', [
            n,
            base.projectId,
            name,
          ]);
        await at(COLLECTION_CAPS.items - 1, 'full');
        await pool.query('UPDATE collection_sessions SET touched_at = 1 WHERE project_id = $1 AND session = $2', [
          base.projectId,
          'stale',
        ]);
        if (copies === 'copies on write')
          await pool.query('UPDATE collection_sessions SET base = 7 WHERE project_id = $1 AND session = $2', [
            base.projectId,
            'reseeded',
          ]);
        const before = hot.creates.oneTrip;
        const asked: [string, Record<string, unknown>][] = [
          ['fresh', { id: 'n1' }],
          ['full', { id: 'f1' }],
          ['taken', { id: 'first' }],
          ['stale', { name: 'no id' }],
          ['reseeded', { id: 'r1' }],
          ['fresh', { id: 'n2' }],
          ['full', { id: 'f2' }],
          ['taken', { id: 't2' }],
        ];
        const results = await Promise.all(
          asked.map(([name, item]) => run(store, session(name), { op: 'create', item })),
        );
        const kinds = results.map((r) => r.kind);
        const reseeded = copies === 'copies on write' ? 'missing' : 'item';
        expect(kinds).toEqual(['item', 'item', 'conflict', 'item', reseeded, 'item', 'too_large', 'item']);
        // the batch statement took the sessions whose creates fit: stale and taken (and reseeded with full copies)
        expect(hot.creates.oneTrip - before).toBe(copies === 'copies on write' ? 3 : 4);
        expect(ids(await run(other, session('fresh'), { op: 'list' }))).toEqual(['s1', 's2', 'n1', 'n2']);
        expect(ids(await run(other, session('full'), { op: 'list' }))).toEqual(['s1', 's2', 'first', 'f1']);
        expect(ids(await run(other, session('taken'), { op: 'list' }))).toEqual(['s1', 's2', 'first', 't2']);
        expect(Number((await row('full'))?.items)).toBe(COLLECTION_CAPS.items);
        // counts and bytes are those of the items listed (seed items included, as the caps count them)
        for (const name of ['fresh', 'taken', 'stale']) {
          const list = await run(other, session(name), { op: 'list' });
          const raw = list.kind === 'items' ? list.raw : [];
          expect(Number((await row(name))?.items)).toBe(raw.length);
          expect(Number((await row(name))?.bytes)).toBe(Buffer.byteLength(raw.join('')));
        }
        // a touch older than a minute is written again; the item without an id got a new one
        expect(Number((await row('stale'))?.touched_at)).toBeGreaterThan(Date.now() - 60_000);
        const stale = await run(other, session('stale'), { op: 'list' });
        expect(stale.kind === 'items' && JSON.parse(stale.raw[3])).toMatchObject({
          name: 'no id',
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        });
      } finally {
        await pool.end();
      }
    },
  );
});
