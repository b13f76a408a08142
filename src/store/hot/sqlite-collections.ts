/**
 * SQLite's rows of collection copies (hot/collections.ts's ItemTable), synchronously (better-sqlite3),
 * inside the group commit's transaction (sqlite.ts).
 *
 * A create whose id was made here (a version-7 uuid, so no row can hold it) goes to an append-only
 * journal first, `collection_pending` (migration 0021): a row id table without an index, so a commit
 * of S8's ~50 creates over 50 sessions writes the journal's last page or two where the items' key
 * B-tree took a leaf and its neighbours for each session it touched (docs/architecture.md "Where
 * S8's WAL goes"). The journal is merged into `collection_items` in one sorted insert once it holds
 * MERGE_AT rows, and at once when a command needs a copy's rows (a get, a list, a change, a create
 * with an id of its own) and the copy has some in the journal (`pending` on its row, written with
 * its counts). Merging it whole, sorted by copy, writes each session's part of the key once for
 * many creates. A copy's row deleted takes its journal rows along (a trigger), as its items go with
 * it (ON DELETE CASCADE). Everything is in the database, so more than one process on the same file
 * stays exact; the count of journal rows kept here only decides when to merge.
 */
import type SqliteDatabase from 'better-sqlite3';
import type { CollectionRef, ItemRow, ItemTable } from './collections.js';
import { SQLITE_COLLECTION } from './statements.js';

/**
 * Journal rows at which a commit merges them into the items: S8 over HTTP read the same CPU a create
 * at 500, 1000 and 2000, and a p99 ~2 ms higher at 2000 (a merge holds the loop ~2 µs a row);
 * docs/architecture.md.
 */
export const MERGE_AT = 1000;

const JOURNAL = {
  add: 'INSERT INTO collection_pending (copy, item_id, ord, data) VALUES (?, ?, ?, ?)',
  rows: 'SELECT COUNT(*) FROM collection_pending',
  // the copies first (their pending count read from the journal), then the rows, sorted by the items'
  // key; a journal row's id was made here (a version-7 uuid), so none is taken: DO NOTHING only keeps
  // a merge from failing for good
  settle: 'UPDATE collection_sessions SET pending = 0 WHERE id IN (SELECT copy FROM collection_pending)',
  merge: `INSERT INTO collection_items (copy, item_id, ord, data)
    SELECT copy, item_id, ord, data FROM collection_pending ORDER BY copy, item_id ON CONFLICT DO NOTHING`,
  clear: 'DELETE FROM collection_pending',
} as const;

type Statements = Record<keyof typeof SQLITE_COLLECTION | keyof typeof JOURNAL, SqliteDatabase.Statement>;

export class SqliteCollections {
  private readonly s: Statements;
  /** the journal's rows as this process counts them (another process's creates are not counted) */
  private journalRows: number;

  constructor(db: SqliteDatabase.Database) {
    const all = { ...SQLITE_COLLECTION, ...JOURNAL };
    this.s = Object.fromEntries(Object.entries(all).map(([k, sql]) => [k, db.prepare(sql)])) as Statements;
    this.s.session.raw(true);
    this.s.rows.pluck(true);
    this.journalRows = Number(this.s.rows.get());
  }

  /** Moves every journal row into the items (in the caller's transaction). */
  mergeJournal(): void {
    this.s.settle.run();
    this.s.merge.run();
    this.s.clear.run();
    this.journalRows = 0;
  }

  /** Whether the journal holds enough rows to merge (a commit then merges it, `mergeJournal`). */
  get mergeDue(): boolean {
    return this.journalRows >= MERGE_AT;
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
      this.mergeJournal();
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
          c.add.run(copy, id, ord, data);
          journaled++;
          this.journalRows++;
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
