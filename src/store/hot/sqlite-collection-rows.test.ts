/**
 * SQLite's collection rows: a session's copy is a row with an integer id, its items are keyed by
 * (copy, item id) and go with it (migration 0016), and the copy keeps its last position (`last_ord`,
 * migration 0015) where its items had an order index. A create goes after every item the session
 * ever had, a list keeps the order, and a database made before both migrations keeps every session's
 * items, positions and counts.
 */
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from '../../../test/helpers/databases.js';
import { itemsCollection } from '../../../test/helpers/store-records.js';
import { seedBase } from '../../domain/collections.js';
import { openStore, type Store } from '../index.js';
import type { CollectionCommand, CollectionRef, CollectionResult } from './collections.js';

describe('collection rows on SQLite', () => {
  let db: TestDatabase;
  let store: Store | null = null;
  afterEach(async () => {
    await store?.close();
    store = null;
    await db?.drop();
  });

  const file = () => db.url.slice('sqlite:'.length);
  const run = (ref: CollectionRef, cmd: CollectionCommand) => (store as Store).hot.collection(ref, cmd);
  const ids = (r: CollectionResult) => (r.kind === 'items' ? r.raw.map((x) => JSON.parse(x).id as string) : []);
  const raw = <T>(read: (d: Database.Database) => T): T => {
    const d = new Database(file(), { readonly: true });
    try {
      return read(d);
    } finally {
      d.close();
    }
  };
  const lastOrd = (session: string) =>
    raw((d) => d.prepare('SELECT last_ord FROM collection_sessions WHERE session = ?').pluck().get(session));
  const itemRows = () => raw((d) => Number(d.prepare('SELECT COUNT(*) FROM collection_items').pluck().get()));

  const seed = [
    { id: 's1', name: 'one' },
    { id: 's2', name: 'two' },
  ];
  let owner = '';
  let projectId = '';

  async function setup(): Promise<CollectionRef> {
    db = await freshDatabase('sqlite');
    store = await openStore(db.url);
    const made = await itemsCollection(store, seed);
    ({ owner, projectId } = made);
    return made.ref;
  }

  it('has no order index, and a create goes after every item the session had, the last one deleted too', async () => {
    const ref = await setup();
    for (const id of ['n1', 'n2', 'n3']) await run(ref, { op: 'create', item: { id } });
    expect(lastOrd('a')).toBe(5);
    await run(ref, { op: 'delete', id: 'n3' });
    await run(ref, { op: 'delete', id: 'n1' });
    await run(ref, { op: 'create', item: { id: 'n4' } });
    expect(ids(await run(ref, { op: 'list' }))).toEqual(['s1', 's2', 'n2', 'n4']);
    expect(lastOrd('a')).toBe(6);
    expect(raw((d) => d.prepare("SELECT name FROM sqlite_master WHERE name = 'collection_items_order'").all())).toEqual(
      [],
    );
  });

  it('keys items by their copy, which takes them along when it is reset, forgotten or its collection deleted', async () => {
    const ref = await setup();
    await run(ref, { op: 'create', item: { id: 'n1' } });
    await run({ ...ref, session: 'b' }, { op: 'create', item: { id: 'n1' } });
    await run({ ...ref, session: 'c' }, { op: 'list' });
    const columns = raw((d) =>
      (d.prepare('PRAGMA table_info(collection_items)').all() as { name: string }[]).map((c) => c.name),
    );
    expect(columns).toEqual(['copy', 'item_id', 'ord', 'data']);
    expect(itemRows()).toBe(8);
    const s = store as Store;
    await s.collections.reset(owner, projectId, 'items', 'a');
    expect(itemRows()).toBe(5);
    expect(ids(await run({ ...ref, session: 'b' }, { op: 'list' }))).toEqual(['s1', 's2', 'n1']);
    await s.mockSessions.forget(projectId, 'b');
    expect(itemRows()).toBe(2);
    await s.collections.delete(owner, projectId, 'items');
    expect(itemRows()).toBe(0);
    expect(raw((d) => d.prepare('SELECT COUNT(*) FROM collection_sessions').pluck().get())).toBe(0);
  });

  it('a database from before migrations 0015, 0016 and 0021 keeps every session’s items, positions and counts', async () => {
    const full = await setup();
    const cow: CollectionRef = { ...full, base: seedBase(seed, 'id'), session: 'w' };
    for (const id of ['n1', 'n2', 'n3']) await run(full, { op: 'create', item: { id } });
    await run(full, { op: 'delete', id: 'n3' });
    await run({ ...full, session: 'b' }, { op: 'create', item: { id: 'm1' } });
    await run({ ...full, session: '' }, { op: 'update', id: 's2', patch: { name: 'shared' } });
    await run(cow, { op: 'delete', id: 's1' });
    await run(cow, { op: 'update', id: 's2', patch: { name: 'mine' } });
    await run(cow, { op: 'create', item: { id: 'w1', name: 'é' } });
    const sessions: [CollectionRef, string][] = [
      [full, 'a'],
      [{ ...full, session: 'b' }, 'b'],
      [{ ...full, session: '' }, ''],
      [cow, 'w'],
    ];
    const before = [];
    for (const [ref] of sessions) before.push([await run(ref, { op: 'list' }), await run(ref, { op: 'count' })]);
    await (store as Store).close();
    store = null;
    // the tables as they were: items keyed by project, collection and session, with an order
    // index and a touch time; sessions without a last position; neither migration run; and one
    // item whose session has no row (never written so, kept all the same)
    const d = new Database(file());
    d.pragma('foreign_keys = OFF');
    d.exec(`BEGIN;
      CREATE TABLE items_then (project_id TEXT NOT NULL, collection TEXT NOT NULL, session TEXT NOT NULL,
        item_id TEXT NOT NULL, ord INTEGER NOT NULL, data TEXT NOT NULL, touched_at INTEGER NOT NULL,
        PRIMARY KEY (project_id, collection, session, item_id),
        FOREIGN KEY (project_id, collection) REFERENCES collections(project_id, name) ON DELETE CASCADE);
      INSERT INTO items_then SELECT s.project_id, s.collection, s.session, i.item_id, i.ord, i.data, s.touched_at
        FROM collection_items i JOIN collection_sessions s ON s.id = i.copy;
      CREATE TABLE sessions_then (project_id TEXT NOT NULL, collection TEXT NOT NULL, session TEXT NOT NULL,
        touched_at INTEGER NOT NULL, base INTEGER NOT NULL DEFAULT -1, items INTEGER NOT NULL DEFAULT 0,
        bytes INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (project_id, collection, session),
        FOREIGN KEY (project_id, collection) REFERENCES collections(project_id, name) ON DELETE CASCADE);
      INSERT INTO sessions_then SELECT project_id, collection, session, touched_at, base, items, bytes FROM collection_sessions;
      DROP TABLE collection_items;
      DROP TABLE collection_sessions;
      ALTER TABLE items_then RENAME TO collection_items;
      ALTER TABLE sessions_then RENAME TO collection_sessions;
      CREATE INDEX collection_items_order ON collection_items(project_id, collection, session, ord);
      INSERT INTO collection_items VALUES ('${projectId}', 'items', 'lost', 'x1', 4, '{"id":"x1"}', 1);
      DROP TABLE collection_pending_0; DROP TABLE collection_pending_1;
      DROP TABLE collection_pending_2; DROP TABLE collection_pending_3;
      DELETE FROM kysely_migration WHERE name >= '0015';
      COMMIT;`);
    d.close();

    store = await openStore(db.url);
    for (let i = 0; i < sessions.length; i++)
      expect([await run(sessions[i][0], { op: 'list' }), await run(sessions[i][0], { op: 'count' })]).toEqual(
        before[i],
      );
    // the last positions as the items had them (n3, deleted at 5, is not among them: it was not before either)
    expect(sessions.map(([, s]) => lastOrd(s))).toEqual([4, 3, 2, 3]);
    expect(ids(await run({ ...full, session: 'lost' }, { op: 'list' }))).toEqual(['x1']);
    expect(await run({ ...full, session: 'lost' }, { op: 'count' })).toEqual({ kind: 'count', count: 1 });
    expect(
      raw((d) => d.prepare("SELECT name FROM sqlite_master WHERE name LIKE '%_then' OR name LIKE '%_old'").all()),
    ).toEqual([]);
    await run(full, { op: 'create', item: { id: 'n5' } });
    expect(ids(await run(full, { op: 'list' }))).toEqual(['s1', 's2', 'n1', 'n2', 'n5']);
    await run(cow, { op: 'create', item: { id: 's1' } });
    expect(ids(await run(cow, { op: 'list' }))).toEqual(['s2', 'w1', 's1']);
    await (store as Store).collections.delete(owner, projectId, 'items');
    expect(itemRows()).toBe(0);
  });
});
