/**
 * SQLite's journal of collection creates (migration 0021; the copies that use it are in
 * sqlite-collections.ts): a create whose id was made here is appended to part `copy % PARTS` of the
 * journal — its row kept in memory until the commit's commands end, then written with the commit's
 * others in multi-row inserts — and a part is merged into `collection_items` in one insert sorted
 * by the key once it holds MERGE_AT rows or MERGE_CHARS of JSON, or at once when a command needs a
 * copy's rows. Everything is in the database once committed; what is kept here only decides when to
 * merge (each part's rows and characters) and spares the merge a pass over the part (each copy's
 * creates there, `tallies`), and it is dropped whenever it may be wrong (`forget`, `lost`).
 */
import type SqliteDatabase from 'better-sqlite3';
import { JOURNAL_PARTS, journalTable } from '../migrations/sqlite-pending.js';
import { SQLITE_COLLECTION } from './statements.js';

/** The journal's parts, as migration 0021 made them: a copy's creates go to part `copy % PARTS`. */
export const PARTS = JOURNAL_PARTS;

/**
 * A part's rows at which a commit merges it into the items. A merge writes each session's end of
 * the items' key once for all its rows there: at 1000 (S8's ~80 rows a session a merge) the
 * store's path took ~1 µs (14 %) less CPU a create than at 250 and wrote a third fewer pages, at
 * 2000 no less than at 1000; a merge holds the loop ~2 µs a row (docs/architecture.md).
 */
export const MERGE_AT = 1000;

/**
 * A part's characters of item JSON at which it is merged whatever its rows: the merge sorts the
 * part whole, and 1000 items of up to 64 KiB would have it sort 64 MB (in memory: temp_store).
 */
export const MERGE_CHARS = 2 * 1024 * 1024;

/**
 * A commit's journal rows are written at its end (`flush`), a part's in statements of a power
 * of two rows up to this many (12 rows: one of 8 and one of 4): one insert of a turn's rows cost ~1.2
 * µs less a row than an insert a row (better-sqlite3, WAL, 50 rows a commit), the binding and a
 * statement's start and reset paid once. Powers of two keep the prepared inserts to 7 a part (~0.3 MB
 * in all, where one for each count up to 64 took ~4 MB).
 */
const ROWS_A_STATEMENT = 64;

/** An insert of `n` rows into journal part `k`. */
const addRows = (k: number, n: number) =>
  `INSERT INTO ${journalTable(k)} (copy, item_id, ord, data) VALUES ${Array(n).fill('(?, ?, ?, ?)').join(', ')}`;

/** The statements of journal part `k`. */
const statements = (k: number) => {
  const t = journalTable(k);
  return {
    rows: `SELECT COUNT(*), COALESCE(SUM(LENGTH(data)), 0) FROM ${t}`,
    // what the part holds of one copy (a scan: the part has no index, and holds ~MERGE_AT rows)
    copyRows: `SELECT COUNT(*), COALESCE(SUM(LENGTH(CAST(data AS BLOB))), 0), COALESCE(MAX(ord), 0) FROM ${t} WHERE copy = ?`,
    // the copies' counts (what the part holds of each) from the part itself, when they are not known
    // here; bytes as Buffer.byteLength counts them: the text's UTF-8
    settle: `UPDATE collection_sessions SET items = items + j.n, bytes = bytes + j.b, last_ord = MAX(last_ord, j.m)
      FROM (SELECT copy, COUNT(*) AS n, SUM(LENGTH(CAST(data AS BLOB))) AS b, MAX(ord) AS m FROM ${t} GROUP BY copy) AS j
      WHERE collection_sessions.id = j.copy`,
    // the rows, sorted by the items' key; a journal row's id was made here (a version-7 uuid), so
    // none is taken: DO NOTHING only keeps a merge from failing for good
    merge: `INSERT INTO collection_items (copy, item_id, ord, data)
      SELECT copy, item_id, ord, data FROM ${t} ORDER BY copy, item_id ON CONFLICT DO NOTHING`,
    clear: `DELETE FROM ${t}`,
  };
};

type Part = Record<keyof ReturnType<typeof statements>, SqliteDatabase.Statement>;

/** Each of `sqls` prepared on `db`, by the same names. */
export function prepareAll<T extends Record<string, string>>(
  db: SqliteDatabase.Database,
  sqls: T,
): Record<keyof T, SqliteDatabase.Statement> {
  return Object.fromEntries(Object.entries(sqls).map(([name, sql]) => [name, db.prepare(sql)])) as Record<
    keyof T,
    SqliteDatabase.Statement
  >;
}

/** A copy's creates in a part: what its merge adds to the copy's row (items, UTF-8 bytes, last position). */
interface Tally {
  items: number;
  bytes: number;
  last: number;
}

export class Journal {
  private readonly parts: Part[];
  /** each part's rows and characters of JSON: counted here, and read again whenever what is known is dropped */
  private readonly rows: number[];
  private readonly chars: number[];
  /** each part's rows of this commit not written yet (copy, id, position, data, …: `flush`) */
  private readonly unwritten: unknown[][];
  /** each part's inserts, by their rows (a power of two; prepared when first needed) */
  private readonly adds: Map<number, SqliteDatabase.Statement>[];
  /** each part's merges so far: a copy counted before its part's last merge has nothing there */
  readonly merges: number[];
  /**
   * Each part's creates by copy, as this process wrote them since the part was last empty, or null
   * when that is not what the part holds (it held rows when the process started or forgot them,
   * another connection wrote the file, a copy's row was deleted, taking its rows along, or a commit
   * rolled back): a merge then counts them from the part (`settle`, a grouped pass over it that
   * cost ~3,400 instructions a row under callgrind, more than the statement a copy that adds the
   * same numbers). Exact by construction otherwise: every row the part gets is counted here.
   */
  private readonly tallies: (Map<number, Tally> | null)[];
  private readonly countMerged: SqliteDatabase.Statement;
  /** merges whose copies' counts came from `tallies` (tests) */
  tallied = 0;

  constructor(private readonly db: SqliteDatabase.Database) {
    this.parts = Array.from({ length: PARTS }, (_, k) => {
      const p: Part = prepareAll(db, statements(k));
      p.rows.raw(true);
      p.copyRows.raw(true);
      return p;
    });
    this.rows = this.parts.map(() => 0);
    this.chars = this.parts.map(() => 0);
    this.unwritten = this.parts.map(() => []);
    this.adds = this.parts.map(() => new Map());
    this.merges = this.parts.map(() => 0);
    this.tallies = this.parts.map(() => null);
    // a copy's row adjusted as a command does (items, bytes, last position, copy)
    this.countMerged = db.prepare(SQLITE_COLLECTION.adjust);
    this.count();
  }

  /** Drops this commit's unwritten rows and what is known of the parts (never throws: error paths call it). */
  forget(): void {
    for (const rows of this.unwritten) rows.length = 0;
    this.count();
  }

  /** What part `k` holds is no longer what `tallies` says (a copy's row was deleted, taking its rows along). */
  lost(k: number): void {
    this.tallies[k] = null;
  }

  /** Whether part `k` may hold rows (of any copy). */
  holds(k: number): boolean {
    return this.rows[k] > 0;
  }

  /** A create of copy `copy` at position `ord`, written at the commit's end (`flush`). */
  append(copy: number, id: string, ord: number, data: string): void {
    const k = copy % PARTS;
    this.unwritten[k].push(copy, id, ord, data);
    this.rows[k]++;
    this.chars[k] += data.length;
  }

  /** Counts `items` creates of copy `copy` (`bytes` of UTF-8, the last at `last`) that `append` took. */
  tally(copy: number, items: number, bytes: number, last: number): void {
    const t = this.tallies[copy % PARTS];
    if (t === null) return;
    const e = t.get(copy);
    if (e === undefined) t.set(copy, { items, bytes, last });
    else {
      e.items += items;
      e.bytes += bytes;
      if (last > e.last) e.last = last;
    }
  }

  /**
   * Writes the journal rows the commit's creates left in memory, each part's in statements of a
   * power of two rows (ROWS_A_STATEMENT). Called at the end of each commit's commands (or of each
   * one, in its savepoint, when they run one by one: sqlite.ts) and before anything reads the
   * journal; what it did not write when it throws is dropped, the commit or savepoint rolled back
   * with it.
   */
  flush(): void {
    for (let k = 0; k < PARTS; k++) if (this.unwritten[k].length > 0) this.flushPart(k);
  }

  private flushPart(k: number): void {
    const rows = this.unwritten[k];
    try {
      const n = rows.length / 4;
      for (let at = 0; at < n; ) {
        const m = Math.min(ROWS_A_STATEMENT, 2 ** Math.floor(Math.log2(n - at)));
        // spread: better-sqlite3 binds arguments faster than an array's elements (read one by one)
        this.addOf(k, m).run(...(m === n ? rows : rows.slice(at * 4, (at + m) * 4)));
        at += m;
      }
    } finally {
      rows.length = 0;
    }
  }

  private addOf(k: number, n: number): SqliteDatabase.Statement {
    let add = this.adds[k].get(n);
    if (add === undefined) {
      add = this.db.prepare(addRows(k, n));
      this.adds[k].set(n, add);
    }
    return add;
  }

  /**
   * Each part's rows, from the database; a part it cannot count is taken to hold some (so a copy of
   * it read again counts its rows there). An empty part's creates are known from here on.
   */
  private count(): void {
    for (let k = 0; k < PARTS; k++) {
      try {
        const [rows, chars] = (this.parts[k].rows.get() as number[]).map(Number);
        this.rows[k] = rows;
        this.chars[k] = chars;
      } catch {
        this.rows[k] = 1;
        this.chars[k] = 0;
      }
      this.tallies[k] = this.rows[k] === 0 ? new Map() : null;
    }
  }

  /** What part of `copy` holds of it: rows, UTF-8 bytes, last position (its unwritten rows written first). */
  copyRows(copy: number): [items: number, bytes: number, last: number] {
    const k = copy % PARTS;
    if (this.unwritten[k].length > 0) this.flushPart(k);
    if (this.rows[k] === 0) return [0, 0, 0];
    return (this.parts[k].copyRows.get(copy) as number[]).map(Number) as [number, number, number];
  }

  /** Moves part `k`'s rows into the items, its copies' rows counting them (in the caller's transaction). */
  merge(k: number): void {
    if (this.unwritten[k].length > 0) this.flushPart(k);
    const p = this.parts[k];
    const t = this.tallies[k];
    if (t === null) p.settle.run();
    else {
      for (const [copy, e] of t) this.countMerged.run(e.items, e.bytes, e.last, copy);
      this.tallied++;
    }
    p.merge.run();
    p.clear.run();
    this.rows[k] = 0;
    this.chars[k] = 0;
    this.tallies[k] = new Map();
    this.merges[k]++;
  }

  /** The part that holds enough rows to merge (the fullest), or -1. */
  get due(): number {
    let due = -1;
    for (let k = 0; k < PARTS; k++)
      if ((this.rows[k] >= MERGE_AT || this.chars[k] >= MERGE_CHARS) && (due < 0 || this.rows[k] > this.rows[due]))
        due = k;
    return due;
  }
}
