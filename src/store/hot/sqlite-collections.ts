/**
 * SQLite's rows of collection copies (hot/collections.ts's ItemTable), synchronously (better-sqlite3),
 * inside the group commit's transaction (sqlite.ts).
 *
 * A create whose id was made here (a version-7 uuid, so no row can hold it) goes to an append-only
 * journal first (sqlite-journal.ts, migration 0021): row id tables without an index, in PARTS parts
 * by copy, so a commit of S8's ~50 creates over 50 sessions writes the parts' last pages where the
 * items' key B-tree took a leaf and its neighbours for each session it touched (docs/architecture.md,
 * "The creates' journal"). A part is merged into `collection_items` once it is full (at most one part
 * a commit), and at once when a command needs a copy's rows (a get, a list, a change, a create with
 * an id of its own) and the copy has some there. A copy's row counts only its items out of the
 * journal (migration 0022): a create writes its journal row alone, and a merge adds its rows to their
 * copies' counts and last positions, so a copy read from its row adds what its part holds of it
 * (counted, not merged: its creates go on while merges fail). A copy's row deleted takes its journal
 * rows along (a trigger), as its items go with it (ON DELETE CASCADE). Everything is in the database
 * once committed, so a restart or another process on the same file sees every create.
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
import type { CollectionRef, ItemRow, ItemTable } from './collections.js';
import { KnownCopies } from './known-copies.js';
import { Journal, PARTS, prepareAll } from './sqlite-journal.js';
import { SQLITE_COLLECTION } from './statements.js';

export { MERGE_AT, MERGE_CHARS, PARTS } from './sqlite-journal.js';

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
export class SqliteCollections {
  private readonly s: Statements;
  /** the creates' journal: its parts, their counts and this commit's rows not written yet */
  private readonly journal: Journal;
  /** copies by project, collection and session (`table`), while only this class changed their rows (the header) */
  private readonly copies = new KnownCopies<KnownCopy>(KNOWN_COPIES);
  /** `PRAGMA data_version`, as last read, and whether this commit has read it yet (`newCommit`) */
  private readonly dataVersion: SqliteDatabase.Statement;
  private version = -1;
  private versionRead = false;

  constructor(db: SqliteDatabase.Database) {
    this.s = prepareAll(db, SQLITE_COLLECTION);
    this.s.session.raw(true);
    this.journal = new Journal(db);
    this.dataVersion = db.prepare('PRAGMA data_version').pluck(true);
    const gone = `mockyard_copies_gone_${++instances}`;
    // a copy's row deleted took its journal rows along: its part's counts by copy are no longer known
    db.function(gone, (copy) => {
      this.copies.clear();
      this.journal.lost(Number(copy) % PARTS);
      return null;
    });
    db.exec(`CREATE TEMP TRIGGER ${gone} AFTER DELETE ON main.collection_sessions BEGIN SELECT ${gone}(OLD.id); END`);
  }

  /**
   * Forgets every known copy (a commit or savepoint of the hot path rolled back), and counts the
   * journal's parts again: a merge rolled back left rows its part's count had dropped. Never throws
   * (the commit's error paths call it).
   */
  forgetCopies(): void {
    this.copies.clear();
    this.journal.forget();
  }

  /** Writes the journal rows the commit's creates left in memory (`Journal.flush`). */
  flushJournal(): void {
    this.journal.flush();
  }

  /** A commit begins: its first command checks that no other connection wrote the file meanwhile. */
  newCommit(): void {
    this.versionRead = false;
  }

  /** The copy known for `ref`, or undefined (read from the row). */
  private known(ref: CollectionRef): KnownCopy | undefined {
    this.checkVersion();
    return this.copies.get(ref.projectId, ref.name, ref.session);
  }

  /**
   * Forgets what is known when another connection wrote the file since this one last looked, once a
   * commit: before its first command reads a copy (no row of the commit is unwritten yet) or a
   * merge reads the part's counts.
   */
  private checkVersion(): void {
    if (this.versionRead) return;
    this.versionRead = true;
    const v = Number(this.dataVersion.get());
    if (v !== this.version) {
      this.version = v;
      this.forgetCopies();
    }
  }

  private remember(ref: CollectionRef, c: KnownCopy): void {
    this.copies.set(ref.projectId, ref.name, ref.session, c);
  }

  /** A copy's items in the journal (none once its part was merged since they were counted). */
  private pendingOf(c: KnownCopy): number {
    const m = this.journal.merges[c.id % PARTS];
    if (c.merges !== m) {
      c.merges = m;
      c.pending = 0;
    }
    return c.pending;
  }

  /** Moves part `k`'s rows into the items (in the caller's transaction). */
  mergePart(k: number): void {
    this.checkVersion();
    this.journal.merge(k);
  }

  /** The part that holds enough rows to merge (the fullest), or -1 (a commit merges it, `mergePart`). */
  get partDue(): number {
    return this.journal.due;
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
          // the row counts only what is out of the journal: what its part holds of the copy is added
          // (counted, not merged, so that a create goes on while merges fail: sqlite.ts, mergeIfDue)
          const [n, b, m] = this.journal.copyRows(id);
          found = {
            id,
            touched,
            base,
            items: items + n,
            bytes: bytes + b,
            last: Math.max(last, m),
            pending: n,
            merges: this.journal.merges[id % PARTS],
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
        const merges = this.journal.merges[id % PARTS];
        k = { id, touched: x.touched, base: x.base, items: x.items, bytes: x.bytes, last, pending: 0, merges };
        this.remember(ref, k);
      },
      touch: (now) => {
        c.touch.run(now, k.id);
        k.touched = now;
      },
      adjust: (items, bytes) => {
        // a create in the journal is counted on its row when its part is merged (the only command
        // that journals is a create, whose adjust is its journal row's: one item, its bytes)
        if (journaled === 0) c.adjust.run(items, bytes, k.last, k.id);
        else if (items === journaled) this.journal.tally(k.id, items, bytes, k.last);
        else this.journal.lost(k.id % PARTS);
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
        if (fresh) {
          this.journal.append(k.id, id, ord, data);
          journaled++;
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
