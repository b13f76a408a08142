/**
 * SQLite's rows of collection copies (hot/collections.ts's ItemTable), synchronously (better-sqlite3),
 * inside the group commit's transaction (sqlite.ts).
 *
 * A create whose id was made here (a version-7 uuid, so no row can hold it) goes to an append-only
 * journal first (migration 0021): row id tables without an index, in PARTS parts by copy
 * (`collection_pending_<copy % PARTS>`), so a commit of S8's ~50 creates over 50 sessions writes the
 * parts' last pages where the items' key B-tree took a leaf and its neighbours for each session it
 * touched (docs/architecture.md, "The creates' journal"). A part is merged into `collection_items` in
 * one insert sorted by the key once it holds MERGE_AT rows (at most one part a commit), and at once
 * when a command needs a copy's rows (a get, a list, a change, a create with an id of its own) and the
 * copy has some there (`pending` on its row, written with its counts). Merging a part whole, sorted
 * by copy, writes each session's part of the key once for many creates. A copy's row deleted takes its
 * journal rows along (a trigger), as its items go with it (ON DELETE CASCADE). Everything is in the
 * database, so a restart or another process on the same file sees every create; the parts' row counts
 * kept here only decide when to merge.
 */
import type SqliteDatabase from 'better-sqlite3';
import { JOURNAL_PARTS, journalTable } from '../migrations/sqlite-pending.js';
import type { CollectionRef, ItemRow, ItemTable } from './collections.js';
import { SQLITE_COLLECTION } from './statements.js';

/** The journal's parts, as migration 0021 made them: a copy's creates go to part `copy % PARTS`. */
export const PARTS = JOURNAL_PARTS;

/**
 * A part's rows at which a commit merges it into the items: S8 over HTTP read the same CPU a create
 * with the whole journal merged at 500, 1000 and 2000 rows, and a merge holds the loop ~2 µs a row;
 * four parts of 250 keep each merge's rows per session (~20) with a quarter of the pause
 * (docs/architecture.md).
 */
export const MERGE_AT = 250;

/** The statements of journal part `k`. */
const journal = (k: number) => {
  const t = journalTable(k);
  return {
    add: `INSERT INTO ${t} (copy, item_id, ord, data) VALUES (?, ?, ?, ?)`,
    rows: `SELECT COUNT(*) FROM ${t}`,
    // the copies first (their pending count read from the part), then the rows, sorted by the items'
    // key; a journal row's id was made here (a version-7 uuid), so none is taken: DO NOTHING only keeps
    // a merge from failing for good
    settle: `UPDATE collection_sessions SET pending = 0 WHERE id IN (SELECT copy FROM ${t})`,
    merge: `INSERT INTO collection_items (copy, item_id, ord, data)
      SELECT copy, item_id, ord, data FROM ${t} ORDER BY copy, item_id ON CONFLICT DO NOTHING`,
    clear: `DELETE FROM ${t}`,
  };
};

type Statements = Record<keyof typeof SQLITE_COLLECTION, SqliteDatabase.Statement>;
type Part = Record<keyof ReturnType<typeof journal>, SqliteDatabase.Statement>;

export class SqliteCollections {
  private readonly s: Statements;
  private readonly parts: Part[];
  /** each part's rows as this process counts them (another process's creates are not counted) */
  private readonly journalRows: number[];

  constructor(db: SqliteDatabase.Database) {
    const prepare = <T extends Record<string, string>>(sqls: T) =>
      Object.fromEntries(Object.entries(sqls).map(([k, sql]) => [k, db.prepare(sql)])) as Record<
        keyof T,
        SqliteDatabase.Statement
      >;
    this.s = prepare(SQLITE_COLLECTION);
    this.s.session.raw(true);
    this.parts = Array.from({ length: PARTS }, (_, k) => prepare(journal(k)));
    this.journalRows = this.parts.map((p) => Number(p.rows.pluck(true).get()));
  }

  /** Moves part `k`'s rows into the items (in the caller's transaction). */
  mergePart(k: number): void {
    const p = this.parts[k];
    p.settle.run();
    p.merge.run();
    p.clear.run();
    this.journalRows[k] = 0;
  }

  /** The part that holds enough rows to merge (the fullest), or -1 (a commit merges it, `mergePart`). */
  get partDue(): number {
    let due = -1;
    for (let k = 0; k < PARTS; k++)
      if (this.journalRows[k] >= MERGE_AT && (due < 0 || this.journalRows[k] > this.journalRows[due])) due = k;
    return due;
  }

  /**
   * One collection and session's rows. Every command reads the session's copy first (`copy`, or
   * `create` when it has none): its row's id keys the rest of the command's statements, its last
   * position (`last_ord`) is written with its counts, which a create adjusts right after its
   * append, and its `pending` says whether the journal holds some of its items.
   */
  table(ref: CollectionRef): ItemTable {
    const c = this.s;
    let copy = 0;
    let last = 0;
    let pending = 0;
    /** journal rows this command wrote, added to the copy's `pending` by `adjust` */
    let journaled = 0;
    const rows = () => {
      if (pending === 0) return;
      this.mergePart(copy % PARTS);
      pending = 0;
    };
    return {
      copy: () => {
        // an array (the statement is raw): better-sqlite3 builds a row object a property at a time
        const row = c.session.get(ref.projectId, ref.name, ref.session) as
          | [id: number, t: number, base: number, items: number, bytes: number, last: number, pending: number]
          | undefined;
        if (row === undefined) return null;
        copy = row[0];
        last = Number(row[5]);
        pending = Number(row[6]);
        return { touched: Number(row[1]), base: Number(row[2]), items: Number(row[3]), bytes: Number(row[4]) };
      },
      create: (x) => {
        // a copy over the seed holds positions up to its base; a full copy, its items at 1…n
        last = x.base >= 0 ? x.base : x.items;
        const k = [ref.projectId, ref.name, ref.session] as const;
        copy = Number(c.create.run(...k, x.touched, x.base, x.items, x.bytes, last).lastInsertRowid);
      },
      touch: (now) => void c.touch.run(now, copy),
      adjust: (items, bytes) => {
        c.adjust.run(items, bytes, last, journaled, copy);
        pending += journaled;
        journaled = 0;
      },
      get: (id) => {
        rows();
        const row = c.get.get(copy, id) as { data: string; ord: number } | undefined;
        return row === undefined ? undefined : { data: row.data, ord: Number(row.ord) };
      },
      insert: (id, ord, data) => {
        rows();
        c.insert.run(copy, id, ord, data);
      },
      update: (id, data) => {
        rows();
        c.update.run(data, copy, id);
      },
      place: (id, ord, data) => {
        rows();
        c.place.run(data, ord, copy, id);
      },
      remove: (id) => {
        rows();
        c.remove.run(copy, id);
      },
      all: () => {
        rows();
        return (c.all.all(copy) as ItemRow[]).map((r) => ({ id: r.id, ord: Number(r.ord), data: r.data }));
      },
      append: (id, data, base, fresh) => {
        const ord = Math.max(last, base) + 1;
        if (fresh) {
          this.parts[copy % PARTS].add.run(copy, id, ord, data);
          journaled++;
          this.journalRows[copy % PARTS]++;
        } else {
          // an id of the item's own may be taken: checked against every row of the copy
          rows();
          if (c.append.run(copy, id, ord, data).changes !== 1) return false;
        }
        last = ord;
        return true;
      },
    };
  }
}
