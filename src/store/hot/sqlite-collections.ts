/**
 * SQLite's rows of collection copies (hot/collections.ts's ItemTable), synchronously (better-sqlite3),
 * inside the group commit's transaction (sqlite.ts).
 *
 * A create whose id was made here (a version-7 uuid, so no row can hold it) goes to an append-only
 * journal first (migration 0021; its row kept in memory until the commit's commands end, then written
 * with the commit's others in multi-row inserts): row id tables without an index, in PARTS parts by copy
 * (`collection_pending_<copy % PARTS>`), so a commit of S8's ~50 creates over 50 sessions writes the
 * parts' last pages where the items' key B-tree took a leaf and its neighbours for each session it
 * touched (docs/architecture.md, "The creates' journal"). A part is merged into `collection_items` in
 * one insert sorted by the key once it holds MERGE_AT rows or MERGE_CHARS of JSON (at most one part a
 * commit), and at once when a command needs a copy's rows (a get, a list, a change, a create with an
 * id of its own) and the copy has some there. Merging a part whole, sorted by copy, writes each session's part of the key
 * once for many creates. A copy's row counts only its items out of the journal (migration 0022): a
 * create writes its journal row alone, and a merge adds its rows to their copies' counts and last
 * positions, so a copy read from its row adds what its part holds of it (counted, not merged: its
 * creates go on while merges fail). A copy's row deleted takes its journal rows along (a trigger), as
 * its items go with it (ON DELETE CASCADE). Everything is in the database once committed, so a
 * restart or another process on the same file sees every create; the parts' row counts kept here
 * (read again from the database whenever what is known is dropped) decide when to merge.
 *
 * Each copy's row is read by its text key once and then **known** here (`copies`, known-copies.ts): every later command
 * of the session takes its id, counts and positions from memory, and each write to the row updates
 * both. What this process does not write through these statements clears what it knows: a delete of
 * any copy's row (reset, forget, idle expiry, a collection's or project's delete and their cascades)
 * through a temporary trigger on this connection, a rolled-back commit or savepoint of the hot path
 * (`forgetCopies`, sqlite.ts), and a commit by another connection to the file, which `PRAGMA
 * data_version` shows at the first command of a commit. A merge of a part zeroes the journal count of
 * its copies, here by its count of merges. Nothing else writes `collection_sessions`' rows (an update of
 * one outside this file must clear `copies` too).
 */
import type SqliteDatabase from 'better-sqlite3';
import { JOURNAL_PARTS, journalTable } from '../migrations/sqlite-pending.js';
import type { CollectionRef, ItemRow, ItemTable } from './collections.js';
import { KnownCopies } from './known-copies.js';
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
 * A commit's journal rows are written at its end (`flushJournal`), a part's in statements of a power
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
const journal = (k: number) => {
  const t = journalTable(k);
  return {
    rows: `SELECT COUNT(*), COALESCE(SUM(LENGTH(data)), 0) FROM ${t}`,
    // what the part holds of one copy (a scan: the part has no index, and holds ~MERGE_AT rows)
    copyRows: `SELECT COUNT(*), COALESCE(SUM(LENGTH(CAST(data AS BLOB))), 0), COALESCE(MAX(ord), 0) FROM ${t} WHERE copy = ?`,
    // the copies' counts first (what the part holds of each), then the rows, sorted by the items'
    // key; a journal row's id was made here (a version-7 uuid), so none is taken: DO NOTHING only keeps
    // a merge from failing for good. Bytes as Buffer.byteLength counts them: the text's UTF-8.
    settle: `UPDATE collection_sessions SET items = items + j.n, bytes = bytes + j.b, last_ord = MAX(last_ord, j.m)
      FROM (SELECT copy, COUNT(*) AS n, SUM(LENGTH(CAST(data AS BLOB))) AS b, MAX(ord) AS m FROM ${t} GROUP BY copy) AS j
      WHERE collection_sessions.id = j.copy`,
    merge: `INSERT INTO collection_items (copy, item_id, ord, data)
      SELECT copy, item_id, ord, data FROM ${t} ORDER BY copy, item_id ON CONFLICT DO NOTHING`,
    clear: `DELETE FROM ${t}`,
  };
};

type Statements = Record<keyof typeof SQLITE_COLLECTION, SqliteDatabase.Statement>;

/** A session's copy's row as this process last read or wrote it. */
interface KnownCopy {
  readonly id: number;
  touched: number;
  readonly base: number;
  items: number;
  bytes: number;
  /** its last position (`last_ord`) */
  last: number;
  /** its items in the journal, as of its part's `merges`-th merge */
  pending: number;
  merges: number;
}

/** Copies known at once at most (S8 uses 50); past it, the one known longest is dropped (read again when used). */
export const KNOWN_COPIES = 10_000;

/** A table's copy until its command's first call (`copy` or `create`) sets it; never written. */
const UNREAD: Readonly<KnownCopy> = Object.freeze({
  id: 0,
  touched: 0,
  base: 0,
  items: 0,
  bytes: 0,
  last: 0,
  pending: 0,
  merges: 0,
});

/** Each SqliteCollections' trigger and function on its connection get a name of their own. */
let instances = 0;
type Part = Record<keyof ReturnType<typeof journal>, SqliteDatabase.Statement>;

export class SqliteCollections {
  private readonly s: Statements;
  private readonly parts: Part[];
  /** each part's rows and characters of JSON: counted here, and read again whenever what is known is dropped */
  private readonly journalRows: number[];
  private readonly journalChars: number[];
  /** each part's rows of this commit not written yet (copy, id, position, data, …: `flushJournal`) */
  private readonly unwritten: unknown[][];
  /** each part's inserts, by their rows (a power of two; prepared when first needed) */
  private readonly adds: Map<number, SqliteDatabase.Statement>[];
  private readonly db: SqliteDatabase.Database;
  /** each part's merges so far: a copy known before its part's last merge has nothing pending */
  private readonly merges: number[];
  /** copies by project, collection and session (`table`), while only this class changed their rows (the header) */
  private readonly copies = new KnownCopies<KnownCopy>(KNOWN_COPIES);
  /** `PRAGMA data_version`, as last read, and whether this commit has read it yet (`newCommit`) */
  private readonly dataVersion: SqliteDatabase.Statement;
  private version = -1;
  private versionRead = false;

  constructor(db: SqliteDatabase.Database) {
    const prepare = <T extends Record<string, string>>(sqls: T) =>
      Object.fromEntries(Object.entries(sqls).map(([k, sql]) => [k, db.prepare(sql)])) as Record<
        keyof T,
        SqliteDatabase.Statement
      >;
    this.s = prepare(SQLITE_COLLECTION);
    this.s.session.raw(true);
    this.parts = Array.from({ length: PARTS }, (_, k) => prepare(journal(k)));
    for (const p of this.parts) {
      p.rows.raw(true);
      p.copyRows.raw(true);
    }
    this.journalRows = this.parts.map(() => 0);
    this.journalChars = this.parts.map(() => 0);
    this.unwritten = this.parts.map(() => []);
    this.adds = this.parts.map(() => new Map());
    this.db = db;
    this.countJournal();
    this.merges = this.parts.map(() => 0);
    this.dataVersion = db.prepare('PRAGMA data_version').pluck(true);
    const gone = `mockyard_copies_gone_${++instances}`;
    db.function(gone, () => {
      this.copies.clear();
      return null;
    });
    db.exec(`CREATE TEMP TRIGGER ${gone} AFTER DELETE ON main.collection_sessions BEGIN SELECT ${gone}(); END`);
  }

  /**
   * Forgets every known copy (a commit or savepoint of the hot path rolled back), and counts the
   * journal's parts again: a merge rolled back left rows its part's count had dropped. Never throws
   * (the commit's error paths call it).
   */
  forgetCopies(): void {
    this.copies.clear();
    for (const rows of this.unwritten) rows.length = 0;
    this.countJournal();
  }

  /**
   * Writes the journal rows the commit's creates left in memory, each part's in statements of a
   * power of two rows (ROWS_A_STATEMENT). Called at the end of each commit's commands (or of each
   * one, in its savepoint, when they run one by one: sqlite.ts) and before anything reads the
   * journal; what it did not write when it throws is dropped, the commit or savepoint rolled back
   * with it.
   */
  flushJournal(): void {
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

  /** Each part's rows, from the database; a part it cannot count is taken to hold some (so a copy of it read again counts its rows there). */
  private countJournal(): void {
    for (let k = 0; k < PARTS; k++) {
      try {
        const [rows, chars] = (this.parts[k].rows.get() as number[]).map(Number);
        this.journalRows[k] = rows;
        this.journalChars[k] = chars;
      } catch {
        this.journalRows[k] = 1;
        this.journalChars[k] = 0;
      }
    }
  }

  /** A commit begins: its first command checks that no other connection wrote the file meanwhile. */
  newCommit(): void {
    this.versionRead = false;
  }

  /** The copy known for `ref`, or undefined (read from the row). */
  private known(ref: CollectionRef): KnownCopy | undefined {
    if (!this.versionRead) {
      this.versionRead = true;
      const v = Number(this.dataVersion.get());
      if (v !== this.version) {
        this.version = v;
        this.forgetCopies();
      }
    }
    return this.copies.get(ref.projectId, ref.name, ref.session);
  }

  private remember(ref: CollectionRef, c: KnownCopy): void {
    this.copies.set(ref.projectId, ref.name, ref.session, c);
  }

  /** A copy's items in the journal (none once its part was merged since they were counted). */
  private pendingOf(c: KnownCopy): number {
    const m = this.merges[c.id % PARTS];
    if (c.merges !== m) {
      c.merges = m;
      c.pending = 0;
    }
    return c.pending;
  }

  /** Moves part `k`'s rows into the items (in the caller's transaction). */
  mergePart(k: number): void {
    if (this.unwritten[k].length > 0) this.flushPart(k);
    const p = this.parts[k];
    p.settle.run();
    p.merge.run();
    p.clear.run();
    this.journalRows[k] = 0;
    this.journalChars[k] = 0;
    this.merges[k]++;
  }

  /** The part that holds enough rows to merge (the fullest), or -1 (a commit merges it, `mergePart`). */
  get partDue(): number {
    let due = -1;
    for (let k = 0; k < PARTS; k++)
      if (
        (this.journalRows[k] >= MERGE_AT || this.journalChars[k] >= MERGE_CHARS) &&
        (due < 0 || this.journalRows[k] > this.journalRows[due])
      )
        due = k;
    return due;
  }

  /**
   * One collection and session's rows. Every command reads the session's copy first (`copy`, or
   * `create` when it has none), from memory when it is known: its id keys the rest of the command's
   * statements, its counts and last position are adjusted right after a change (on its row too,
   * unless the change waits in the journal), and its `pending` says whether the journal holds some
   * of its items.
   */
  table(ref: CollectionRef): ItemTable {
    const c = this.s;
    /** the copy (set by `copy` or `create`, which every command calls first) */
    let k = UNREAD as KnownCopy;
    /** journal rows this command wrote, added to the copy's `pending` by `adjust` */
    let journaled = 0;
    const rows = () => {
      if (this.pendingOf(k) > 0) this.mergePart(k.id % PARTS);
    };
    return {
      copy: () => {
        let found = this.known(ref);
        if (found === undefined) {
          // an array (the statement is raw): better-sqlite3 builds a row object a property at a time
          const row = c.session.get(ref.projectId, ref.name, ref.session) as
            | [id: number, t: number, base: number, items: number, bytes: number, last: number]
            | undefined;
          if (row === undefined) return null;
          const [id, touched, base, items, bytes, last] = row.map(Number);
          const part = id % PARTS;
          // the row counts only what is out of the journal: what its part holds of the copy is added
          // (counted, not merged, so that a create goes on while merges fail: sqlite.ts, mergeIfDue)
          if (this.unwritten[part].length > 0) this.flushPart(part);
          const [n, b, m] =
            this.journalRows[part] > 0 ? (this.parts[part].copyRows.get(id) as number[]).map(Number) : [0, 0, 0];
          found = {
            id,
            touched,
            base,
            items: items + n,
            bytes: bytes + b,
            last: Math.max(last, m),
            pending: n,
            merges: this.merges[part],
          };
          this.remember(ref, found);
        }
        k = found;
        return { touched: k.touched, base: k.base, items: k.items, bytes: k.bytes };
      },
      create: (x) => {
        // a copy over the seed holds positions up to its base; a full copy, its items at 1…n
        const last = x.base >= 0 ? x.base : x.items;
        const keys = [ref.projectId, ref.name, ref.session] as const;
        const id = Number(c.create.run(...keys, x.touched, x.base, x.items, x.bytes, last).lastInsertRowid);
        const merges = this.merges[id % PARTS];
        k = { id, touched: x.touched, base: x.base, items: x.items, bytes: x.bytes, last, pending: 0, merges };
        this.remember(ref, k);
      },
      touch: (now) => {
        c.touch.run(now, k.id);
        k.touched = now;
      },
      adjust: (items, bytes) => {
        // a create in the journal is counted on its row when its part is merged
        if (journaled === 0) c.adjust.run(items, bytes, k.last, k.id);
        k.items += items;
        k.bytes += bytes;
        k.pending = this.pendingOf(k) + journaled;
        journaled = 0;
      },
      get: (id) => {
        rows();
        const row = c.get.get(k.id, id) as { data: string; ord: number } | undefined;
        return row === undefined ? undefined : { data: row.data, ord: Number(row.ord) };
      },
      insert: (id, ord, data) => {
        rows();
        c.insert.run(k.id, id, ord, data);
      },
      update: (id, data) => {
        rows();
        c.update.run(data, k.id, id);
      },
      place: (id, ord, data) => {
        rows();
        c.place.run(data, ord, k.id, id);
      },
      remove: (id) => {
        rows();
        c.remove.run(k.id, id);
      },
      all: () => {
        rows();
        return (c.all.all(k.id) as ItemRow[]).map((r) => ({ id: r.id, ord: Number(r.ord), data: r.data }));
      },
      append: (id, data, base, fresh) => {
        const ord = Math.max(k.last, base) + 1;
        const part = k.id % PARTS;
        if (fresh) {
          this.unwritten[part].push(k.id, id, ord, data);
          journaled++;
          this.journalRows[part]++;
          this.journalChars[part] += data.length;
        } else {
          // an id of the item's own may be taken: checked against every row of the copy
          rows();
          if (c.append.run(k.id, id, ord, data).changes !== 1) return false;
        }
        k.last = ord;
        return true;
      },
    };
  }
}
