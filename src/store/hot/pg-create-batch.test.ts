/**
 * PostgreSQL's batch of creates (migrations/pg-create-batch.ts). A session's last position is kept
 * on its copy's row (migration 0017): the batch reads it there and writes it, every other insert —
 * command by command, from this version or the one before — raises it through a statement trigger,
 * and a database from before the migration gets the positions of the items it has. The function has
 * two forms (migration 0018): this version's, told which ids the process made (inserted without a
 * conflict check), and the one processes of the version before call, which checks every id. A batch
 * of made ids takes its counts from what it was asked rather than reading back its rows, and every
 * batch has the trigger skip its own inserts (migration 0019).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, PG_URL, type TestDatabase } from '../../../test/helpers/databases.js';
import { openStore, type Store } from '../index.js';
import type { CollectionRef, CollectionResult } from './collections.js';
import { CreateBatcher } from './pg-creates.js';
import type { PostgresHot } from './postgres.js';

describe.runIf(PG_URL)('the batch of creates on PostgreSQL', () => {
  let db: TestDatabase;
  let store: Store;
  let pool: pg.Pool;
  beforeAll(async () => {
    db = await freshDatabase('postgres');
    store = await openStore(db.url);
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
  });
  afterAll(async () => {
    await pool?.end();
    await store?.close();
    await db?.drop();
  });

  async function collection(seed: { id: string }[] = []): Promise<Omit<CollectionRef, 'session'>> {
    const u = await store.users.create(`o-${randomBytes(5).toString('hex')}@example.test`, 'h');
    const p = await store.projects.create(u.id, { name: 'p' });
    await store.collections.create(u.id, p.id, 'items', { idField: 'id', seed });
    return { projectId: p.id, name: 'items', idField: 'id', seed, base: null };
  }
  const run = (ref: CollectionRef, cmd: Parameters<Store['hot']['collection']>[1]) => store.hot.collection(ref, cmd);
  const ids = (r: CollectionResult) => (r.kind === 'items' ? r.raw.map((x) => JSON.parse(x).id as string) : []);
  const last = async (ref: CollectionRef) =>
    Number(
      (
        await pool.query(
          'SELECT last_ord FROM collection_sessions WHERE project_id = $1 AND collection = $2 AND session = $3',
          [ref.projectId, ref.name, ref.session],
        )
      ).rows[0]?.last_ord,
    );
  const positions = async (ref: CollectionRef) =>
    Object.fromEntries(
      (
        await pool.query(
          'SELECT item_id, ord FROM collection_items WHERE project_id = $1 AND collection = $2 AND session = $3',
          [ref.projectId, ref.name, ref.session],
        )
      ).rows.map((r) => [r.item_id, Number(r.ord)]),
    );
  /** creates asked together (the batch statement takes them once the copy exists) */
  async function batch(ref: CollectionRef, names: string[]): Promise<number> {
    const hot = store.hot as PostgresHot;
    const before = hot.creates.oneTrip;
    const out = await Promise.all(names.map((id) => run(ref, { op: 'create', item: { id } })));
    expect(out.every((r) => r.kind === 'item')).toBe(true);
    return hot.creates.oneTrip - before;
  }
  /** a session of a new collection without a seed, its copy made */
  async function session(name: string): Promise<CollectionRef> {
    const ref = { ...(await collection()), session: name };
    await run(ref, { op: 'count' });
    return ref;
  }

  /**
   * Calls the batch function itself, each group a session and the ids of its new items (`{"id":…}`):
   * with `fresh`, the form this version calls (0018), without it the version before's.
   */
  async function callBatch(
    q: pg.Pool | pg.PoolClient,
    groups: { ref: CollectionRef; ids: string[] }[],
    fresh?: boolean,
  ): Promise<{ g: number; item_id: string }[]> {
    const datas = groups.map((x) => x.ids.map((id) => JSON.stringify({ id })));
    const values: unknown[] = [
      groups.map((x) => `collection:${x.ref.projectId}:${x.ref.name}:${x.ref.session}`),
      groups.map((x) => x.ref.projectId),
      groups.map((x) => x.ref.name),
      groups.map((x) => x.ref.session),
      groups.map((x) => x.ids.length),
      datas.map((d) => d.reduce((n, j) => n + j.length, 0)),
      groups.map(() => -1),
      groups.flatMap((x, g) => x.ids.map(() => g + 1)),
      groups.flatMap((x) => x.ids),
      datas.flat(),
      datas.flat().map((j) => j.length),
      Date.now(),
      10_000,
      10 * 1024 * 1024,
      60_000,
    ];
    if (fresh !== undefined) values.push(groups.flatMap((x) => x.ids.map(() => fresh)));
    const { rows } = await q.query(
      `SELECT g, item_id FROM mockyard_create_batch($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[],
        $6::bigint[], $7::bigint[], $8::int[], $9::text[], $10::text[], $11::bigint[], $12, $13, $14, $15
        ${fresh === undefined ? '' : ', $16::boolean[]'})`,
      values,
    );
    return rows;
  }
  /** Runs `work` in a transaction of one pooled connection, rolled back when it throws. */
  async function inTransaction(work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await work(client);
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK');
      throw e;
    } finally {
      client.release();
    }
  }

  it('a batch goes after every item the session ever had, the last one deleted too', async () => {
    const ref = { ...(await collection([{ id: 's1' }, { id: 's2' }])), session: 'deleted-last' };
    // the first create makes the session's full copy command by command: the seed at 1 and 2, then a1
    await run(ref, { op: 'create', item: { id: 'a1' } });
    expect(await last(ref)).toBe(3);
    expect(await batch(ref, ['a2', 'a3', 'a4'])).toBe(3);
    expect(await last(ref)).toBe(6);
    expect(await run(ref, { op: 'delete', id: 'a4' })).toMatchObject({ kind: 'deleted' });
    expect(await batch(ref, ['a5', 'a6'])).toBe(2);
    expect(await positions(ref)).toEqual({ s1: 1, s2: 2, a1: 3, a2: 4, a3: 5, a5: 7, a6: 8 });
    expect(await last(ref)).toBe(8);
    expect(ids(await run(ref, { op: 'list' }))).toEqual(['s1', 's2', 'a1', 'a2', 'a3', 'a5', 'a6']);
  });

  it('an insert made command by command, as the version before makes it, raises the last position', async () => {
    const ref = { ...(await collection()), session: 'older' };
    await run(ref, { op: 'create', item: { id: 'b1' } });
    expect(await batch(ref, ['b2'])).toBe(1);
    // the version before's one-by-one create: its position read from the order index, and the
    // copy's count and bytes moved, its last position not
    await pool.query(
      `INSERT INTO collection_items (project_id, collection, session, item_id, ord, data, touched_at)
        SELECT $1, $2, $3, x.id, top.ord + x.n, x.data, 0
        FROM unnest($4::text[], $5::text[]) WITH ORDINALITY AS x(id, data, n),
          (SELECT ord FROM collection_items WHERE project_id = $1 AND collection = $2 AND session = $3
            ORDER BY ord DESC LIMIT 1) AS top`,
      [ref.projectId, ref.name, ref.session, ['old1', 'old2'], ['{"id":"old1"}', '{"id":"old2"}']],
    );
    await pool.query(
      'UPDATE collection_sessions SET items = items + 2, bytes = bytes + 26 WHERE project_id = $1 AND session = $2',
      [ref.projectId, ref.session],
    );
    expect(await last(ref)).toBe(4);
    expect(await batch(ref, ['b3'])).toBe(1);
    expect(await positions(ref)).toEqual({ b1: 1, b2: 2, old1: 3, old2: 4, b3: 5 });
    expect(ids(await run(ref, { op: 'list' }))).toEqual(['b1', 'b2', 'old1', 'old2', 'b3']);
  });

  it('creates with ids given and made, asked together, keep the order asked; a given id taken answers conflict', async () => {
    const ref = await session('mixed');
    await store.hot.collection(ref, { op: 'create', item: { id: 'taken' } });
    const hot = store.hot as PostgresHot;
    const before = hot.creates.oneTrip;
    const asked = [{ id: 'g1' }, { name: 'made 1' }, { id: 'taken' }, { id: 'g2' }, { name: 'made 2' }];
    const out = await Promise.all(asked.map((item) => store.hot.collection(ref, { op: 'create', item })));
    expect(out.map((r) => r.kind)).toEqual(['item', 'item', 'conflict', 'item', 'item']);
    expect(hot.creates.oneTrip - before).toBe(5);
    // the ids made here: version-7 uuids
    const made = [out[1], out[4]].map((r) => (r.kind === 'item' ? String(r.item.id) : ''));
    for (const id of made) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    expect(ids(await store.hot.collection(ref, { op: 'list' }))).toEqual(['taken', 'g1', made[0], 'g2', made[1]]);
    expect(await store.hot.collection(ref, { op: 'count' })).toEqual({ kind: 'count', count: 5 });
    expect(await last(ref)).toBe(6);
  });

  it('creates whose ids are all made here, asked together over two sessions, are all kept in the order asked', async () => {
    const a = await session('made-a');
    const b = { ...a, session: 'made-b' };
    await store.hot.collection(b, { op: 'count' });
    const hot = store.hot as PostgresHot;
    const before = hot.creates.oneTrip;
    const out = await Promise.all(
      Array.from({ length: 8 }, (_, i) => store.hot.collection(i % 2 ? b : a, { op: 'create', item: { n: i } })),
    );
    expect(out.every((r) => r.kind === 'item' && r.created)).toBe(true);
    expect(hot.creates.oneTrip - before).toBe(8);
    const listed = async (ref: CollectionRef) => {
      const r = await store.hot.collection(ref, { op: 'list' });
      return r.kind === 'items' ? r.raw.map((x) => JSON.parse(x) as { id: string; n: number }) : [];
    };
    expect((await listed(a)).map((x) => x.n)).toEqual([0, 2, 4, 6]);
    expect((await listed(b)).map((x) => x.n)).toEqual([1, 3, 5, 7]);
    expect((await listed(a)).map((x) => x.id)).toEqual(
      [0, 2, 4, 6].map((i) => (out[i].kind === 'item' ? out[i].item.id : '')),
    );
    expect(await last(a)).toBe(4);
    expect(await last(b)).toBe(4);
    // the counts and bytes the batch added are those of the rows it wrote
    for (const ref of [a, b]) {
      const { rows } = await pool.query(
        `SELECT s.items, s.bytes, count(i.item_id) AS n, coalesce(sum(octet_length(i.data)), 0) AS stored
          FROM collection_sessions s LEFT JOIN collection_items i USING (project_id, collection, session)
          WHERE s.project_id = $1 AND s.collection = $2 AND s.session = $3 GROUP BY s.items, s.bytes`,
        [ref.projectId, ref.name, ref.session],
      );
      expect(rows[0]).toMatchObject({ items: '4', n: '4' });
      expect(Number(rows[0].bytes)).toBe(Number(rows[0].stored));
      expect(Number(rows[0].bytes)).toBeGreaterThan(4 * 40);
    }
  });

  it('a batch inside a larger transaction leaves the trigger on for the inserts after it', async () => {
    const ref = await session('inside');
    await store.hot.collection(ref, { op: 'create', item: { id: 'i1' } });
    await inTransaction(async (client) => {
      expect(await callBatch(client, [{ ref, ids: ['i2'] }], true)).toEqual([{ g: 1, item_id: 'i2' }]);
      await client.query(
        `INSERT INTO collection_items (project_id, collection, session, item_id, ord, data, touched_at)
          VALUES ($1, $2, $3, 'i3', 3, '{"id":"i3"}', 0)`,
        [ref.projectId, ref.name, ref.session],
      );
    });
    expect(await last(ref)).toBe(3);
  });

  it('the batch reads no copy by a sequential scan, whatever the plan was made for', async () => {
    // a plan made while the copies' table is small and kept by the connection as the table grows
    // read every copy of every project each batch (65 ms a call at 200,000 copies, bench/README.md)
    const c = await collection();
    const refs = Array.from({ length: 25 }, (_, i) => ({ ...c, session: `scan-${i}` }));
    for (const ref of refs) await run(ref, { op: 'count' });
    await inTransaction(async (client) => {
      const scans = async () =>
        Number(
          (await client.query("SELECT seq_scan FROM pg_stat_xact_user_tables WHERE relname = 'collection_sessions'"))
            .rows[0].seq_scan,
        );
      const before = await scans();
      // more calls than the plan cache's five custom plans, so the generic plan runs too
      for (let n = 1; n <= 7; n++) {
        const groups = refs.map((ref, i) => ({ ref, ids: [`x${n}-${i}`] }));
        expect(await callBatch(client, groups, n % 2 === 0)).toHaveLength(25);
        // an insert as the version before makes it, which the trigger follows
        await client.query(
          `INSERT INTO collection_items (project_id, collection, session, item_id, ord, data, touched_at)
            SELECT $1, $2, s, $3, $4, '{}', 0 FROM unnest($5::text[]) AS s`,
          [c.projectId, c.name, `y${n}`, 1000 * n, refs.map((r) => r.session)],
        );
      }
      expect(await scans()).toBe(before);
    });
    for (const ref of [refs[0], refs[24]]) expect(await last(ref)).toBe(7000);
  });

  it('the form the version before calls still creates, skips a taken id and keeps the last position', async () => {
    const ref = await session('older');
    await store.hot.collection(ref, { op: 'create', item: { id: 'o1' } });
    const rows = await callBatch(pool, [{ ref, ids: ['o1', 'o2', 'o3'] }]);
    expect(rows).toEqual([
      { g: 1, item_id: 'o2' },
      { g: 1, item_id: 'o3' },
    ]);
    expect(ids(await store.hot.collection(ref, { op: 'list' }))).toEqual(['o1', 'o2', 'o3']);
    expect(await last(ref)).toBe(4);
  });
  it('creates sent as a batch is answered wait for as many as it answered, then go as one batch', async () => {
    const refs = await Promise.all(Array.from({ length: 8 }, (_, i) => session(`gather-${i}`)));
    // a wait long enough that only the count ends it here (its timer ends it below)
    const creates = new CreateBatcher(pool, { gatherMs: 2_000 });
    const create = (ref: CollectionRef) => creates.create(ref, { op: 'create', item: { name: ref.session } });
    await Promise.all(refs.map(create));
    expect([creates.batches, creates.batched]).toEqual([1, 8]);
    // the eight clients answered send again, one a turn, as answers come back over their sockets:
    // without the wait the first would go alone
    const again: Promise<CollectionResult>[] = [];
    for (const ref of refs) {
      again.push(create(ref));
      await new Promise((r) => setImmediate(r));
    }
    expect((await Promise.all(again)).every((r) => r.kind === 'item' && r.created)).toBe(true);
    expect([creates.batches, creates.batched]).toEqual([2, 16]);
    for (const ref of refs) expect(await run(ref, { op: 'count' })).toEqual({ kind: 'count', count: 2 });
  });

  it('a lone create after a batch goes once the wait is over', async () => {
    const refs = await Promise.all(Array.from({ length: 4 }, (_, i) => session(`lone-${i}`)));
    const creates = new CreateBatcher(pool, { gatherMs: 5 });
    const create = (ref: CollectionRef) => creates.create(ref, { op: 'create', item: { name: ref.session } });
    await Promise.all(refs.map(create));
    expect(await create(refs[0])).toMatchObject({ kind: 'item', created: true });
    expect([creates.batches, creates.batched]).toEqual([2, 5]);
    expect(await run(refs[0], { op: 'count' })).toEqual({ kind: 'count', count: 2 });
  });

  it('a database from before migration 0017 gets the last position of every session', async () => {
    const ref = { ...(await collection()), session: 'before' };
    const empty = { ...ref, session: 'empty' };
    await run(ref, { op: 'create', item: { id: 'c1' } });
    await batch(ref, ['c2', 'c3']);
    await run(empty, { op: 'count' });
    await store.close();
    // the schema as migration 0016 left it, the batch function included
    await pool.query(`
      DROP TRIGGER collection_items_last_ord ON collection_items;
      DROP FUNCTION mockyard_items_last_ord();
      ALTER TABLE collection_sessions DROP COLUMN last_ord;
      DELETE FROM kysely_migration WHERE name >= '0017';`);
    store = await openStore(db.url);
    expect(await last(ref)).toBe(3);
    expect(await last(empty)).toBe(0);
    expect(await batch(ref, ['c4'])).toBe(1);
    expect(await positions(ref)).toEqual({ c1: 1, c2: 2, c3: 3, c4: 4 });
  });
});
