/**
 * The hot path's SQL, written once for both databases. Statements use `?` placeholders;
 * `numbered` turns them into PostgreSQL's `$1, $2, …`.
 */

/** `?` → `$1, $2, …` (no statement here has a `?` inside a string literal). */
export function numbered(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

/** Adds `hits` to a rule's counter in a session (creating it), answering the new total. */
export const HIT_CONFLICT =
  'ON CONFLICT (rule_id, session) DO UPDATE SET hits = rule_hits.hits + excluded.hits, touched_at = excluded.touched_at';

export const HIT_UPSERT = `INSERT INTO rule_hits (rule_id, session, hits, touched_at) VALUES (?, ?, ?, ?) ${HIT_CONFLICT} RETURNING hits`;

/** Where stored values live: an endpoint's (`storage`) or a project's (`project_storage`), per session. */
export type StorageKind = 'endpoint' | 'project';

/** The read, upsert and delete of one kind of storage (the two tables have the same shape). */
export function storageStatements(kind: StorageKind): { read: string; upsert: string; remove: string } {
  const [table, owner] = kind === 'endpoint' ? ['storage', 'endpoint_id'] : ['project_storage', 'project_id'];
  return {
    read: `SELECT name, value FROM ${table} WHERE ${owner} = ? AND session = ?`,
    upsert: `INSERT INTO ${table} (${owner}, session, name, value, touched_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (${owner}, session, name) DO UPDATE SET value = excluded.value, touched_at = excluded.touched_at`,
    remove: `DELETE FROM ${table} WHERE ${owner} = ? AND session = ? AND name = ?`,
  };
}

/** One request-log row (SQLite, after PROJECT_EXISTS in the same transaction; see hot/sqlite.ts). */
export const LOG_ROW = 'INSERT INTO request_log (id, project_id, at, entry) VALUES (?, ?, ?, ?)';
export const PROJECT_EXISTS = 'SELECT 1 FROM projects WHERE id = ?';

/**
 * `rows` request-log entries (id, project id, time, entry JSON, position) in one statement, in
 * order (the position keeps it: a semi-join may reorder rows); rows of a project deleted
 * meanwhile are dropped. PostgreSQL's (one round trip for a chunk); SQLite writes a row at a time
 * (LOG_ROW). VALUES names its columns column1….
 */
export function logInsert(rows: number): string {
  return `INSERT INTO request_log (id, project_id, at, entry)
    SELECT column1, column2, column3, column4 FROM (VALUES ${Array(rows).fill('(?, ?, ?, ?, ?)').join(', ')}) AS v
    WHERE column2 IN (SELECT id FROM projects) ORDER BY CAST(column5 AS INTEGER)`;
}

/** The bound parameters of `logInsert` for these rows. */
export function logArgs(rows: readonly { projectId: string; entry: { id: string; at: string } }[]): string[] {
  const out: string[] = [];
  let n = 0;
  for (const { projectId, entry } of rows) out.push(entry.id, projectId, entry.at, JSON.stringify(entry), String(n++));
  return out;
}

/** One collection and session's rows (hot/collections.ts); every statement starts with the three keys. */
const KEYS = 'project_id = ? AND collection = ? AND session = ?';
export const COLLECTION = {
  session: `SELECT touched_at AS t, base, items, bytes FROM collection_sessions WHERE ${KEYS}`,
  create: `INSERT INTO collection_sessions (project_id, collection, session, touched_at, base, items, bytes)
    VALUES (?, ?, ?, ?, ?, ?, ?)`,
  touch: `UPDATE collection_sessions SET touched_at = ? WHERE ${KEYS}`,
  adjust: `UPDATE collection_sessions SET items = items + ?, bytes = bytes + ? WHERE ${KEYS}`,
  get: `SELECT data, ord FROM collection_items WHERE ${KEYS} AND item_id = ?`,
  insert: `INSERT INTO collection_items (project_id, collection, session, item_id, ord, data, touched_at)
    VALUES (?, ?, ?, ?, ?, ?, ?)`,
  update: `UPDATE collection_items SET data = ?, touched_at = ? WHERE ${KEYS} AND item_id = ?`,
  place: `UPDATE collection_items SET data = ?, ord = ?, touched_at = ? WHERE ${KEYS} AND item_id = ?`,
  remove: `DELETE FROM collection_items WHERE ${KEYS} AND item_id = ?`,
  all: `SELECT item_id AS id, ord, data FROM collection_items WHERE ${KEYS} ORDER BY ord`,
  /**
   * A new item after the last one (and after the seed's positions, `base`), unless its id is taken
   * (no row then): one statement where a lookup, a read of the last position and an insert were
   * three. The last position is read through the order index by ORDER BY … LIMIT 1, which
   * PostgreSQL plans that way even before the table has statistics (MAX() on a fresh table was
   * planned as a scan of the session's rows).
   */
  append: `INSERT INTO collection_items (project_id, collection, session, item_id, ord, data, touched_at)
    VALUES (?, ?, ?, ?, (SELECT CASE WHEN COALESCE(MAX(last.ord), 0) > ? THEN COALESCE(MAX(last.ord), 0) ELSE ? END + 1
      FROM (SELECT ord FROM collection_items WHERE ${KEYS} ORDER BY ord DESC LIMIT 1) AS last), ?, ?)
    ON CONFLICT DO NOTHING`,
} as const;

/**
 * SQLite's own: a session's copy is a row with an integer id (migration 0016), its items are keyed by
 * (copy, item id), and the copy keeps its last position (`last_ord`), so an append is a plain insert
 * at the position the command computed from the row it read, and its items need no order index (a
 * list sorts the copy's rows instead). The copy is looked up by its text key when the process does not
 * know it yet (sqlite-collections.ts); every other statement names it by its id; its counts leave out
 * its items still in the creates' journal (migration 0022). PostgreSQL keeps COLLECTION's statements
 * and the order index.
 */
export const SQLITE_COLLECTION = {
  session: `SELECT id, touched_at AS t, base, items, bytes, last_ord AS last FROM collection_sessions WHERE ${KEYS}`,
  create: `INSERT INTO collection_sessions (project_id, collection, session, touched_at, base, items, bytes, last_ord)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  touch: 'UPDATE collection_sessions SET touched_at = ? WHERE id = ?',
  adjust:
    'UPDATE collection_sessions SET items = items + ?, bytes = bytes + ?, last_ord = MAX(last_ord, ?) WHERE id = ?',
  get: 'SELECT data, ord FROM collection_items WHERE copy = ? AND item_id = ?',
  insert: 'INSERT INTO collection_items (copy, item_id, ord, data) VALUES (?, ?, ?, ?)',
  update: 'UPDATE collection_items SET data = ? WHERE copy = ? AND item_id = ?',
  place: 'UPDATE collection_items SET data = ?, ord = ? WHERE copy = ? AND item_id = ?',
  remove: 'DELETE FROM collection_items WHERE copy = ? AND item_id = ?',
  all: 'SELECT item_id AS id, ord, data FROM collection_items WHERE copy = ? ORDER BY ord',
  append: 'INSERT INTO collection_items (copy, item_id, ord, data) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
} as const satisfies Record<keyof typeof COLLECTION, string>;
