/**
 * HotState on SQLite (better-sqlite3): prepared statements on the store's one connection, the
 * writes of a turn committed together (group-commit.ts) in one transaction, each op in a savepoint
 * of its own so that one failing write fails alone (a hit counter's upsert is one statement, which
 * SQLite undoes by itself when it fails; a turn's lone op has the transaction to itself). The
 * writes of one storage in a turn are one op (`updateStorage`).
 *
 * The invariant that keeps this safe on the shared connection: better-sqlite3 is synchronous, and
 * every Kysely transaction of the store awaits only its own statements (microtasks), so it runs
 * from BEGIN to COMMIT inside one macrotask; the group commit runs in a setImmediate callback, a
 * macrotask of its own, and so never finds the connection inside another transaction. Were a
 * transaction to await real I/O between its statements, better-sqlite3 would nest the group
 * commit as a savepoint of it — answered requests could then be rolled back with it. The commit
 * checks `inTransaction` and waits a turn rather than nest, so even that mistake costs latency,
 * not durability.
 */
import type SqliteDatabase from 'better-sqlite3';
import { drive } from '../../shared/steps.js';
import { type CollectionCommand, type CollectionRef, type CollectionResult, execute } from './collections.js';
import {
  failEach,
  failHitGroup,
  failWaiter,
  GroupCommit,
  type HitGroup,
  hitKey,
  type PendingOp,
  settleEach,
  settleHitGroup,
  settleWaiter,
  type Waiter,
} from './group-commit.js';
import type { HotState, LogRow, ProblemReport, StorageOwner, StorageWrite } from './hot-state.js';
import { SqliteCollections } from './sqlite-collections.js';
import { HIT_UPSERT, LOG_ROW, PROJECT_EXISTS, type StorageKind, storageStatements } from './statements.js';
import { applyStorageWrites } from './storage-writes.js';

/** One turn's writes of one storage, and who hears each one's result (in the same order). */
interface StorageBatch {
  readonly writes: StorageWrite[];
  readonly waiters: Waiter<Map<string, string>>[];
}

/** An op's result, or what it threw. */
interface Settled {
  readonly ok: boolean;
  readonly value: unknown;
}

/** An op threw in a commit run without savepoints (`SqliteHot.runCommit`): its error comes again in the careful run. */
class OpThrew {}

/**
 * A collection command as an op of the group commit: one object where a promise took the op's
 * closure, the promise and its resolving functions, and the caller's `then` (S8: a create each).
 * The commit may run `op` twice (again in the careful run); its waiter hears once.
 */
class CollectionOp implements PendingOp {
  constructor(
    private readonly collections: SqliteCollections,
    private readonly ref: CollectionRef,
    private readonly cmd: CollectionCommand,
    private readonly waiter: Waiter<CollectionResult>,
  ) {}
  op(): CollectionResult {
    const out = drive(execute(this.ref, this.cmd, this.collections.table(this.ref)));
    if (out instanceof Promise) throw new Error('a SQLite collection command waited');
    return out;
  }
  resolve(v: unknown): void {
    settleWaiter(this.waiter, v as CollectionResult);
  }
  reject(e: unknown): void {
    failWaiter(this.waiter, e);
  }
}

interface StorageStatements {
  read: SqliteDatabase.Statement;
  upsert: SqliteDatabase.Statement;
  remove: SqliteDatabase.Statement;
}

/**
 * A commit waits up to two more turns while fewer than 32 writes are pending: S4 (a durable hit per
 * request) cost 5-7 % less server CPU a request with it (bench/README.md), the answers a turn or two
 * later (well under a millisecond under load).
 */
const COMMIT_SPREAD = { turns: 2, enough: 32 } as const;

export class SqliteHot implements HotState {
  private readonly hitStmt: SqliteDatabase.Statement;
  private readonly stmts: Record<StorageKind, StorageStatements>;
  /** runs `body` in a transaction: BEGIN … COMMIT at the top, a savepoint inside another (better-sqlite3) */
  private readonly tx: <T>(body: () => T) => T;
  /**
   * this turn's writes of each storage, committed as one op (`updateStorage`): per owner kind, by
   * `hitKey(owner id, session)` (outside sessions the id itself, no string built per write)
   */
  private readonly storageBatches: Record<StorageKind, Map<string, StorageBatch>> = {
    endpoint: new Map(),
    project: new Map(),
  };
  private readonly commits: GroupCommit;
  /** commits run again with a savepoint per op, after one of their ops threw (tests read it) */
  carefulCommits = 0;
  private readonly collections: SqliteCollections;
  readonly appendLog: (rows: LogRow[]) => void;

  constructor(
    private readonly db: SqliteDatabase.Database,
    private readonly report: ProblemReport,
  ) {
    this.hitStmt = db.prepare(HIT_UPSERT);
    const prepare = (kind: StorageKind): StorageStatements => {
      const t = storageStatements(kind);
      return { read: db.prepare(t.read), upsert: db.prepare(t.upsert), remove: db.prepare(t.remove) };
    };
    this.stmts = { endpoint: prepare('endpoint'), project: prepare('project') };
    // A project's rows are written when it still exists, asked once per run of its rows: the
    // transaction holds the connection, so no delete comes between. A plain prepared insert a row,
    // where PostgreSQL's multi-row statement (logInsert) filtered and sorted its VALUES for each row
    // here: better-sqlite3's run went from ~48,000 to ~36,000 instructions a logged request under
    // callgrind (S1 at moderate load, where every entry is written; the trim's share included).
    const projectExists = db.prepare(PROJECT_EXISTS).pluck();
    const logRow = db.prepare(LOG_ROW);
    this.appendLog = db.transaction((rows: LogRow[]) => {
      let project = '';
      let exists = false;
      for (const { projectId, entry } of rows) {
        if (projectId !== project) {
          project = projectId;
          exists = projectExists.get(projectId) !== undefined;
        }
        if (exists) logRow.run(entry.id, projectId, entry.at, JSON.stringify(entry));
      }
    });
    this.tx = db.transaction(<T>(body: () => T): T => body()) as <T>(body: () => T) => T;
    this.commits = new GroupCommit((ops, hits) => this.commit(ops, hits), COMMIT_SPREAD);
    this.collections = new SqliteCollections(db);
  }

  collection(ref: CollectionRef, cmd: CollectionCommand): Promise<CollectionResult> {
    return new Promise((resolve, reject) => this.collectionInto(ref, cmd, { resolve, reject }));
  }

  /** An op of the group commit (one object a command: `CollectionOp`), its waiter told once committed. */
  collectionInto(ref: CollectionRef, cmd: CollectionCommand, waiter: Waiter<CollectionResult>): void {
    this.commits.enqueue(new CollectionOp(this.collections, ref, cmd, waiter));
  }

  private commit(ops: PendingOp[], hits: HitGroup[]): void {
    if (this.db.inTransaction) {
      // see the invariant above: never nest inside another transaction
      setImmediate(() => this.commit(ops, hits));
      return;
    }
    if (ops.length === 0 && hits.length === 1) {
      this.commitLoneHits(hits[0]);
      return;
    }
    if (ops.length === 1 && hits.length === 0) {
      this.commitLoneOp(ops[0]);
      return;
    }
    let results: Settled[];
    try {
      results = this.tx(() => this.runCommit(ops, hits, false));
    } catch (first) {
      this.collections.forgetCopies();
      try {
        if (!(first instanceof OpThrew)) throw first;
        // rolled back whole: again, each op in a savepoint of its own, so that the one that throws fails alone
        this.carefulCommits++;
        results = this.tx(() => this.runCommit(ops, hits, true));
      } catch (err) {
        this.collections.forgetCopies();
        for (const o of ops) o.reject(err);
        for (const g of hits) failHitGroup(g, err);
        return;
      }
    }
    for (let i = 0; i < ops.length; i++) {
      if (results[i].ok) ops[i].resolve(results[i].value);
      else ops[i].reject(results[i].value);
    }
    for (let j = 0; j < hits.length; j++) {
      const { ok, value } = results[ops.length + j];
      if (ok) settleHitGroup(hits[j], value as number);
      else failHitGroup(hits[j], value);
    }
  }

  /**
   * A commit's ops, then its hits, in the transaction. Optimistically (`careful` false) the ops run
   * without a savepoint each: an op that throws throws the commit (`OpThrew`), which `commit` rolls
   * back and runs again carefully, each op in a savepoint of its own (ops are run again from the
   * start: a collection command or a storage batch reads what it needs anew). A savepoint and its
   * release cost ~1.5 µs an op (50 ops a commit, WAL, synchronous = NORMAL), and a commit of S8's
   * carries ~50 creates; an op throws only when a command breaks (docs/architecture.md).
   */
  private runCommit(ops: readonly PendingOp[], hits: readonly HitGroup[], careful: boolean): Settled[] {
    const results: Settled[] = [];
    this.collections.newCommit();
    for (const o of ops) {
      if (!careful) {
        let value: unknown;
        try {
          value = o.op();
        } catch {
          throw new OpThrew();
        }
        results.push({ ok: true, value });
        continue;
      }
      try {
        // the op's journal rows written in its own savepoint, so that they go with it if it fails
        const value = this.tx(() => {
          const out = o.op();
          this.collections.flushJournal();
          return out;
        });
        results.push({ ok: true, value });
      } catch (err) {
        // its savepoint rolled back what it wrote, and the copies it changed are read again
        this.collections.forgetCopies();
        results.push({ ok: false, value: err });
      }
    }
    if (!careful) {
      try {
        this.collections.flushJournal();
      } catch {
        throw new OpThrew();
      }
    }
    const now = Date.now();
    for (const g of hits) {
      try {
        // one statement: SQLite undoes a failed one by itself, so it needs no savepoint
        results.push({ ok: true, value: this.countHits(g, now) });
      } catch (err) {
        results.push({ ok: false, value: err });
      }
    }
    this.mergeIfDue();
    return results;
  }

  /**
   * Merges a part of the collection creates' journal when one is due (sqlite-collections.ts; at most
   * one a commit, so that the parts' pauses fall on different commits), in the commit's transaction
   * and a savepoint of its own: a merge that fails leaves the part for the next commit (each command
   * that needs its copy's rows merges them itself) and fails none of the commit's ops.
   */
  private mergeIfDue(): void {
    // the commit's journal rows first, outside the merge's savepoint (its rollback would take them)
    this.collections.flushJournal();
    const k = this.collections.partDue;
    if (k < 0) return;
    try {
      this.tx(() => this.collections.mergePart(k));
    } catch (err) {
      // left for the next commit
      this.collections.forgetCopies();
      this.report('merging the collection creates’ journal', err);
    }
  }

  /** A turn's one op needs no savepoint: when it fails, the transaction, which holds nothing else, is rolled back. */
  private commitLoneOp(o: PendingOp): void {
    let value: unknown;
    try {
      value = this.tx(() => {
        this.collections.newCommit();
        const out = o.op();
        this.mergeIfDue();
        return out;
      });
    } catch (err) {
      this.collections.forgetCopies();
      o.reject(err);
      return;
    }
    o.resolve(value);
  }

  /**
   * A turn whose only writes are the hits of one rule and session (a sequence under load, bench S4:
   * ~49 hits a commit) is one statement, atomic on its own: it runs without the BEGIN and COMMIT
   * around it, which cost more than the upsert itself (better-sqlite3, WAL, synchronous = NORMAL:
   * 17.5 µs a commit in a transaction, 7.3 µs alone). What is written, and when it is durable, is
   * the same.
   */
  private commitLoneHits(g: HitGroup): void {
    let total: number;
    try {
      total = this.countHits(g, Date.now());
    } catch (err) {
      failHitGroup(g, err);
      return;
    }
    settleHitGroup(g, total);
  }

  /** Adds a group's hits to its counter: the counter's new total. */
  private countHits(g: HitGroup, now: number): number {
    return Number((this.hitStmt.get(g.ruleId, g.session, g.waiters.length, now) as { hits: number }).hits);
  }

  hit(ruleId: string, session: string): Promise<number> {
    return this.commits.hit(ruleId, session);
  }

  hitInto(ruleId: string, session: string, waiter: Waiter<number>): void {
    this.commits.hitInto(ruleId, session, waiter);
  }

  storage(owner: StorageOwner, session: string): Map<string, string> {
    const rows = this.stmts[owner.kind].read.all(owner.id, session) as { name: string; value: string }[];
    return new Map(rows.map((r) => [r.name, r.value]));
  }

  /**
   * The writes of one storage in a turn (S5: every request writes the same name) are one op of the
   * group commit: one read of the storage and one upsert per name changed, instead of both per request.
   */
  updateStorage(owner: StorageOwner, session: string, write: StorageWrite): Promise<Map<string, string>> {
    return new Promise((resolve, reject) => this.updateStorageInto(owner, session, write, { resolve, reject }));
  }

  /**
   * `updateStorage` with the result handed to `waiter` once committed: the op's results go to the
   * batch's waiters after the commit (`commit` settles an op once its transaction is done), with no
   * promise per write (the mock path's store_variable: actions/store-variable.ts).
   */
  updateStorageInto(
    owner: StorageOwner,
    session: string,
    write: StorageWrite,
    waiter: Waiter<Map<string, string>>,
  ): void {
    const batches = this.storageBatches[owner.kind];
    const key = hitKey(owner.id, session);
    let batch = batches.get(key);
    if (batch === undefined) {
      const b: StorageBatch = { writes: [], waiters: [] };
      this.commits.enqueue({
        op: () => {
          batches.delete(key);
          return this.writeStorage(owner, session, b.writes);
        },
        resolve: (out) => settleEach(b.waiters, out as (Map<string, string> | Error)[]),
        reject: (err) => {
          // a commit that failed before running the op (its BEGIN) leaves no batch behind for later writes
          if (batches.get(key) === b) batches.delete(key);
          failEach(b.waiters, err);
        },
      });
      batch = b;
      batches.set(key, batch);
    }
    batch.writes.push(write);
    batch.waiters.push(waiter);
  }

  private writeStorage(owner: StorageOwner, session: string, batch: readonly StorageWrite[]) {
    const { out, changed } = applyStorageWrites(this.storage(owner, session), batch);
    const { upsert, remove } = this.stmts[owner.kind];
    const now = Date.now();
    for (const [name, value] of changed) {
      if (value === null) remove.run(owner.id, session, name);
      else upsert.run(owner.id, session, name, value, now);
    }
    return out;
  }
}
