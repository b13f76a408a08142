/**
 * PostgreSQL's batch function in its two forms (migrations/pg-create-batch.ts): this version's,
 * told which ids the process made (inserted without a conflict check), and the form processes of the
 * version before call, which checks every id — both on a database migrated by this version.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, PG_URL, type TestDatabase } from '../../../test/helpers/databases.js';
import { openStore, type Store } from '../index.js';
import type { CollectionRef, CollectionResult } from './collections.js';
import type { PostgresHot } from './postgres.js';

describe.runIf(PG_URL)('the batch function’s two forms on PostgreSQL', () => {
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

  async function session(name: string): Promise<CollectionRef> {
    const u = await store.users.create(`b-${randomBytes(5).toString('hex')}@example.test`, 'h');
    const p = await store.projects.create(u.id, { name: 'p' });
    await store.collections.create(u.id, p.id, 'items', { idField: 'id', seed: [] });
    const ref = { projectId: p.id, name: 'items', idField: 'id', seed: [], base: null, session: name };
    await store.hot.collection(ref, { op: 'count' }); // the session's copy
    return ref;
  }
  const ids = (r: CollectionResult) => (r.kind === 'items' ? r.raw.map((x) => JSON.parse(x).id as string) : []);
  const last = async (ref: CollectionRef) =>
    Number(
      (
        await pool.query('SELECT last_ord FROM collection_sessions WHERE project_id = $1 AND session = $2', [
          ref.projectId,
          ref.session,
        ])
      ).rows[0].last_ord,
    );

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
  });

  it('the form the version before calls still creates, skips a taken id and keeps the last position', async () => {
    const ref = await session('older');
    await store.hot.collection(ref, { op: 'create', item: { id: 'o1' } });
    const key = `collection:${ref.projectId}:${ref.name}:${ref.session}`;
    const datas = ['{"id":"o1"}', '{"id":"o2"}', '{"id":"o3"}'];
    const { rows } = await pool.query(
      `SELECT g, item_id FROM mockyard_create_batch($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[],
        $6::bigint[], $7::bigint[], $8::int[], $9::text[], $10::text[], $11::bigint[], $12, $13, $14, $15)`,
      [
        [key],
        [ref.projectId],
        [ref.name],
        [ref.session],
        [3],
        [33],
        [-1],
        [1, 1, 1],
        ['o1', 'o2', 'o3'],
        datas,
        [11, 11, 11],
        Date.now(),
        10_000,
        10 * 1024 * 1024,
        60_000,
      ],
    );
    expect(rows).toEqual([
      { g: 1, item_id: 'o2' },
      { g: 1, item_id: 'o3' },
    ]);
    expect(ids(await store.hot.collection(ref, { op: 'list' }))).toEqual(['o1', 'o2', 'o3']);
    expect(await last(ref)).toBe(4);
  });
});
