/**
 * SQLite's collection rows keyed by a number for the session's copy (migration 0016): each copy's
 * row in `collection_sessions` gets an integer id (`INTEGER PRIMARY KEY`, SQLite's row id), and its
 * items are keyed by (copy, item id) and go with their copy's row (`ON DELETE CASCADE`), where they
 * repeated the project id, the collection and the session in every row and in its key. A create
 * then writes about 5.2 KB where it wrote 7.0 and costs about a fifth less CPU (bench/collection-keys.mjs,
 * docs/architecture.md "Where S8's WAL goes"). Items no longer keep a touch time of their own: a
 * session's use is its copy's (`touched_at` on its row), which is all idle expiry ever read.
 *
 * PostgreSQL keeps its tables: its creates are grouped by a function written against them
 * (pg-create-batch.ts) and its copies are locked by their text key.
 *
 * The rebuild runs in one transaction (Kysely runs SQLite's migrations outside one): the old tables
 * renamed aside, the new ones made under the old names, the rows copied, the old tables dropped.
 * Items without their copy's row (none are written so; kept all the same) get a row of their own,
 * counted from them, as a full copy. A database already rebuilt is left alone.
 */
import { type AnyDb, runOnceSqlite } from './run.js';

const KEY = 'o.project_id = s.project_id AND o.collection = s.collection AND o.session = s.session';

export const SQLITE_COPY_KEY = [
  'ALTER TABLE collection_items RENAME TO collection_items_old',
  'ALTER TABLE collection_sessions RENAME TO collection_sessions_old',
  `CREATE TABLE collection_sessions (id INTEGER PRIMARY KEY, project_id TEXT NOT NULL, collection TEXT NOT NULL,
    session TEXT NOT NULL, touched_at INTEGER NOT NULL, base INTEGER NOT NULL DEFAULT -1,
    items INTEGER NOT NULL DEFAULT 0, bytes INTEGER NOT NULL DEFAULT 0, last_ord INTEGER NOT NULL DEFAULT 0,
    UNIQUE (project_id, collection, session),
    FOREIGN KEY (project_id, collection) REFERENCES collections(project_id, name) ON DELETE CASCADE)`,
  `CREATE TABLE collection_items (copy INTEGER NOT NULL REFERENCES collection_sessions(id) ON DELETE CASCADE,
    item_id TEXT NOT NULL, ord INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (copy, item_id))`,
  `INSERT INTO collection_sessions (project_id, collection, session, touched_at, base, items, bytes, last_ord)
    SELECT project_id, collection, session, touched_at, base, items, bytes, last_ord FROM collection_sessions_old`,
  `INSERT INTO collection_sessions (project_id, collection, session, touched_at, base, items, bytes, last_ord)
    SELECT o.project_id, o.collection, o.session, MAX(o.touched_at), -1, COUNT(*), SUM(LENGTH(CAST(o.data AS BLOB))), MAX(o.ord)
    FROM collection_items_old o
    WHERE o.collection IN (SELECT name FROM collections c WHERE c.project_id = o.project_id)
      AND NOT EXISTS (SELECT 1 FROM collection_sessions s WHERE ${KEY})
    GROUP BY o.project_id, o.collection, o.session`,
  `INSERT INTO collection_items (copy, item_id, ord, data)
    SELECT s.id, o.item_id, o.ord, o.data FROM collection_items_old o JOIN collection_sessions s ON ${KEY}`,
  'DROP TABLE collection_items_old',
  'DROP TABLE collection_sessions_old',
];

export const sqliteCopyKey = (db: AnyDb) =>
  runOnceSqlite(db, { table: 'collection_sessions', column: 'id' }, SQLITE_COPY_KEY);
