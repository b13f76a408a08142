/**
 * SQLite keeps a collection session's last position on its row (`last_ord`) and its items no order
 * index (migration 0015): a create goes after every item the session ever had, a list keeps the
 * order, and a database made before the migration gets its sessions' last positions from their items.
 */
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from '../../../test/helpers/databases.js';
import { openStore, type Store } from '../index.js';
import type { CollectionCommand, CollectionRef, CollectionResult } from './collections.js';

describe('collection positions on SQLite', () => {
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
  const lastOrd = (session: string) => {
    const raw = new Database(file(), { readonly: true });
    try {
      return raw.prepare('SELECT last_ord FROM collection_sessions WHERE session = ?').pluck().get(session);
    } finally {
      raw.close();
    }
  };

  async function setup(): Promise<CollectionRef> {
    db = await freshDatabase('sqlite');
    store = await openStore(db.url);
    const u = await store.users.create('pos@example.test', 'h');
    const p = await store.projects.create(u.id, { name: 'p' });
    const seed = [
      { id: 's1', name: 'one' },
      { id: 's2', name: 'two' },
    ];
    await store.collections.create(u.id, p.id, 'items', { idField: 'id', seed });
    return { projectId: p.id, name: 'items', idField: 'id', seed, base: null, session: 'a' };
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
    const raw = new Database(file(), { readonly: true });
    try {
      expect(raw.prepare("SELECT name FROM sqlite_master WHERE name = 'collection_items_order'").all()).toEqual([]);
    } finally {
      raw.close();
    }
  });

  it('a database from before the migration gets each session’s last position from its items', async () => {
    const ref = await setup();
    for (const id of ['n1', 'n2', 'n3']) await run(ref, { op: 'create', item: { id } });
    await run({ ...ref, session: 'b' }, { op: 'create', item: { id: 'm1' } });
    await (store as Store).close();
    store = null;
    // the schema as it was: the order index, no last position, the migration not yet run
    const raw = new Database(file());
    raw.exec(`DROP INDEX IF EXISTS collection_items_order;
      CREATE INDEX collection_items_order ON collection_items(project_id, collection, session, ord);
      ALTER TABLE collection_sessions DROP COLUMN last_ord;
      DELETE FROM kysely_migration WHERE name = '0015_sqlite_collection_last_ord';`);
    raw.close();

    store = await openStore(db.url);
    expect([lastOrd('a'), lastOrd('b')]).toEqual([5, 3]);
    await run(ref, { op: 'create', item: { id: 'n5' } });
    expect(ids(await run(ref, { op: 'list' }))).toEqual(['s1', 's2', 'n1', 'n2', 'n3', 'n5']);
    expect(ids(await run({ ...ref, session: 'b' }, { op: 'list' }))).toEqual(['s1', 's2', 'm1']);
  });
});
