/**
 * PostgreSQL keeps a session's last position on its copy's row (migration 0017,
 * migrations/pg-create-batch.ts): the batch of creates reads it there and writes it, every other
 * insert — command by command, from this version or the one before — raises it through a statement
 * trigger, and a database from before the migration gets the positions of the items it has.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, PG_URL, type TestDatabase } from '../../../test/helpers/databases.js';
import { openStore, type Store } from '../index.js';
import type { CollectionRef, CollectionResult } from './collections.js';
import type { PostgresHot } from './postgres.js';

describe.runIf(PG_URL)('a session’s last position on PostgreSQL', () => {
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
