/**
 * Stores on one SQLite test file, and reads of that file through a connection of their own: the
 * helpers of the tests of SQLite's collection rows (the creates' journal, the copies a store knows).
 */
import Database from 'better-sqlite3';
import type { CollectionResult } from '../../src/domain/collections.js';
import { openStore, type Store } from '../../src/store/index.js';
import { JOURNAL_PARTS, journalTable } from '../../src/store/migrations/sqlite-pending.js';
import { freshDatabase, type TestDatabase } from './databases.js';

/** A collection's seed of two items (id field `id`). */
export const TWO_ITEMS = [
  { id: 's1', name: 'one' },
  { id: 's2', name: 'two' },
];

/** The ids of a list's items. */
export const listedIds = (r: CollectionResult) =>
  r.kind === 'items' ? r.raw.map((x) => JSON.parse(x).id as string) : [];
/** The id of an answered item. */
export const itemId = (r: CollectionResult) => (r.kind === 'item' ? (r.item.id as string) : `not an item: ${r.kind}`);

export function sqliteStores() {
  let db: TestDatabase | null = null;
  const stores: Store[] = [];
  const file = () => (db as TestDatabase).url.slice('sqlite:'.length);
  /** `use` with a connection of its own to the test's file */
  const onFile = <T>(use: (d: Database.Database) => T): T => {
    const d = new Database(file());
    try {
      return use(d);
    } finally {
      d.close();
    }
  };
  const count = (sql: string, ...args: unknown[]) =>
    onFile((d) =>
      Number(
        d
          .prepare(sql)
          .pluck()
          .get(...args),
      ),
    );
  const part = (k: number) => count(`SELECT COUNT(*) FROM ${journalTable(k)}`);
  return {
    /** another store on the test's file (closed by `drop`) */
    async open(): Promise<Store> {
      db ??= await freshDatabase('sqlite');
      const s = await openStore(db.url);
      stores.push(s);
      return s;
    },
    async close(s: Store): Promise<void> {
      stores.splice(stores.indexOf(s), 1);
      await s.close();
    },
    /** closes every store and removes the file */
    async drop(): Promise<void> {
      for (const s of stores.splice(0)) await s.close();
      await db?.drop();
      db = null;
    },
    onFile,
    count,
    /** rows in the journal's part `k` */
    part,
    /** rows in the whole journal */
    journal: () => Array.from({ length: JOURNAL_PARTS }, (_, k) => part(k)).reduce((a, b) => a + b, 0),
  };
}
