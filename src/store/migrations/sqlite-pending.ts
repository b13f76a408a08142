/**
 * SQLite's journal of collection creates (migration 0021, store/hot/sqlite-collections.ts): a copy's
 * row counts its items still in the journal (`pending`), the journal is row id tables without an
 * index (a create appends at the end of one) in JOURNAL_PARTS parts by copy, and a copy's row
 * deleted — reset, forgotten, its collection or project deleted (ON DELETE CASCADE, which fires the
 * triggers too) — takes its journal rows along. A database that has the journal already is left alone.
 * The store reads the parts' count and names from here, so both keep to what the migration made.
 *
 * Migration 0022: a copy's row no longer counts its items in the journal (a create writes the journal
 * only; a merge adds its rows to their copies' counts, store/hot/sqlite-collections.ts). The journal
 * as 0021 kept it (counted on the rows) is merged first, and a copy's row deleted takes its journal
 * rows along whatever its `pending` (which 0022 leaves at 0).
 */
import { type AnyDb, inSqliteTransaction, runOnceSqlite } from './run.js';

/** The journal's parts: a copy's creates go to part `copy % JOURNAL_PARTS`. */
export const JOURNAL_PARTS = 4;

/** Part `k`'s table. */
export const journalTable = (k: number) => `collection_pending_${k}`;

/** Part `k`'s trigger: a copy's row deleted takes its journal rows along. */
export const journalTrigger = (k: number) => `${journalTable(k)}_gone`;

export const SQLITE_PENDING = [
  'ALTER TABLE collection_sessions ADD COLUMN pending INTEGER NOT NULL DEFAULT 0',
  ...Array.from({ length: JOURNAL_PARTS }, (_, k) => [
    `CREATE TABLE IF NOT EXISTS ${journalTable(k)} (seq INTEGER PRIMARY KEY, copy INTEGER NOT NULL,
      item_id TEXT NOT NULL, ord INTEGER NOT NULL, data TEXT NOT NULL)`,
    `CREATE TRIGGER IF NOT EXISTS ${journalTrigger(k)} AFTER DELETE ON collection_sessions
      WHEN OLD.pending > 0 AND OLD.id % ${JOURNAL_PARTS} = ${k}
      BEGIN DELETE FROM ${journalTable(k)} WHERE copy = OLD.id; END`,
  ]).flat(),
];

export const sqlitePending = (db: AnyDb) =>
  runOnceSqlite(db, { table: 'collection_sessions', column: 'pending' }, SQLITE_PENDING);

export const SQLITE_UNCOUNTED = [
  ...Array.from({ length: JOURNAL_PARTS }, (_, k) => [
    `INSERT INTO collection_items (copy, item_id, ord, data)
      SELECT copy, item_id, ord, data FROM ${journalTable(k)} WHERE copy IN (SELECT id FROM collection_sessions)
      ORDER BY copy, item_id ON CONFLICT DO NOTHING`,
    `DELETE FROM ${journalTable(k)}`,
    `DROP TRIGGER IF EXISTS ${journalTrigger(k)}`,
    `CREATE TRIGGER ${journalTrigger(k)} AFTER DELETE ON collection_sessions WHEN OLD.id % ${JOURNAL_PARTS} = ${k}
      BEGIN DELETE FROM ${journalTable(k)} WHERE copy = OLD.id; END`,
  ]).flat(),
  'UPDATE collection_sessions SET pending = 0 WHERE pending <> 0',
];

export const sqliteJournalUncounted = (db: AnyDb) => inSqliteTransaction(db, SQLITE_UNCOUNTED);
