/**
 * SQLite's journal of collection creates (migration 0021, store/hot/sqlite-collections.ts): a copy's
 * row counts its items still in the journal (`pending`), the journal is a row id table without an
 * index (a create appends at its end) in four parts by copy, and a copy's row deleted — reset, forgotten, its collection
 * or project deleted (ON DELETE CASCADE, which fires the trigger too) — takes its journal rows along.
 * A database that has the journal already is left alone.
 */
import { type AnyDb, runOnceSqlite } from './run.js';

/** The journal's parts (store/hot/sqlite-collections.ts: a copy's creates go to part `copy % 4`). */
const PARTS = [0, 1, 2, 3];

export const SQLITE_PENDING = [
  'ALTER TABLE collection_sessions ADD COLUMN pending INTEGER NOT NULL DEFAULT 0',
  ...PARTS.flatMap((k) => [
    `CREATE TABLE IF NOT EXISTS collection_pending_${k} (seq INTEGER PRIMARY KEY, copy INTEGER NOT NULL,
      item_id TEXT NOT NULL, ord INTEGER NOT NULL, data TEXT NOT NULL)`,
    `CREATE TRIGGER IF NOT EXISTS collection_pending_${k}_gone AFTER DELETE ON collection_sessions
      WHEN OLD.pending > 0 AND OLD.id % ${PARTS.length} = ${k}
      BEGIN DELETE FROM collection_pending_${k} WHERE copy = OLD.id; END`,
  ]),
];

export const sqlitePending = (db: AnyDb) =>
  runOnceSqlite(db, { table: 'collection_sessions', column: 'pending' }, SQLITE_PENDING);
