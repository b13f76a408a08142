/**
 * HotState on PostgreSQL (pg pool). Hits: one `unnest` upsert (a prepared statement) for all rules
 * and sessions that asked since the last round trip, at most one in flight per process
 * (group-commit.ts); each rule counted alone when the batch fails (e.g. a rule deleted meanwhile).
 * Storage updates and collection commands: a transaction holding an advisory lock on the key
 * ((owner, session), or (project, collection, session)), one at a time per key in the process so
 * that at most one pooled connection per key waits for the cross-process lock and a hot endpoint
 * cannot take the whole pool from the rest of the traffic; what is asked for a key while its
 * transaction runs goes into the next one together (`joined`). The request log: multi-row inserts
 * of up to 500 entries.
 */
import type pg from 'pg';
import type * as collections from './collections.js';
import {
  failEach,
  failHitGroup,
  failWaiter,
  GroupCommit,
  type HitGroup,
  hitKey,
  settleEach,
  settleHitGroup,
  settleWaiter,
  toError,
  type Waiter,
} from './group-commit.js';
import type { HotState, LogRow, StorageOwner, StorageWrite } from './hot-state.js';
import { type CollectionWork, named, run, runCommands } from './pg-collections.js';
import { CreateBatcher, collectionKey } from './pg-creates.js';
import { HIT_CONFLICT, logArgs, logInsert, numbered, type StorageKind, storageStatements } from './statements.js';
import { applyStorageWrites } from './storage-writes.js';

const HIT_BATCH = `INSERT INTO rule_hits (rule_id, session, hits, touched_at)
  SELECT t.r, t.s, t.c, $4 FROM unnest($1::text[], $2::text[], $3::int[]) AS t(r, s, c)
  ${HIT_CONFLICT} RETURNING rule_id, session, hits`;
const namedStorage = (kind: StorageKind) => {
  const t = storageStatements(kind);
  return {
    read: named(`${kind}_read`, t.read),
    upsert: named(`${kind}_upsert`, t.upsert),
    remove: named(`${kind}_remove`, t.remove),
  };
};
const STORAGE = { endpoint: namedStorage('endpoint'), project: namedStorage('project') };
const LOCK = named('lock', 'SELECT pg_advisory_xact_lock(hashtext(?))');
/** 500 rows × 5 parameters: far below PostgreSQL's 65,535 parameters per statement */
const PG_LOG_CHUNK = 500;

/** One piece of work waiting for its key's next transaction (`joined`). */
interface Joining<W, R> {
  readonly work: W;
  readonly resolve: (r: R) => void;
  readonly reject: (e: unknown) => void;
}
/** Pieces of work in one joined transaction at most (past it, the next batch starts and waits its turn). */
const MAX_JOINED = 256;

const toMap = (rows: { name: string; value: string }[]) => new Map(rows.map((x) => [x.name, x.value]));

export class PostgresHot implements HotState {
  private readonly commits = new GroupCommit((_ops, hits) => this.commitHits(hits));
  /** Tail of the queue of transactions per key in this process. */
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Work waiting for its key's next transaction (`joined`). */
  private readonly waiting = new Map<string, readonly unknown[]>();
  /** Transactions of batched work run, and the pieces of work they held (read by the tests). */
  joinedTransactions = 0;
  joinedWork = 0;
  /** creates, batched across collections and sessions (read by the tests) */
  readonly creates: CreateBatcher;
  private readonly logStatements = new Map<number, string>();

  constructor(private readonly pool: pg.Pool) {
    this.creates = new CreateBatcher(pool);
  }

  hit(ruleId: string, session: string): Promise<number> {
    return this.commits.hit(ruleId, session);
  }

  hitInto(ruleId: string, session: string, waiter: Waiter<number>): void {
    this.commits.hitInto(ruleId, session, waiter);
  }

  private async commitHits(groups: HitGroup[]): Promise<void> {
    const run = async (batch: HitGroup[]) => {
      // a named statement: parsed and planned once per pooled connection, not per round trip
      const r = await this.pool.query({
        name: 'mockyard_hit_batch',
        text: HIT_BATCH,
        values: [
          batch.map((g) => g.ruleId),
          batch.map((g) => g.session),
          batch.map((g) => g.waiters.length),
          Date.now(),
        ],
      });
      const totals = new Map<string, number>();
      for (const row of r.rows as { rule_id: string; session: string; hits: string | number }[]) {
        totals.set(hitKey(row.rule_id, row.session), Number(row.hits));
      }
      // every count is known before any waiter hears one: a batch that throws is counted again rule
      // by rule below, so no waiter may have been answered from it
      const counted = batch.map((g) => totals.get(hitKey(g.ruleId, g.session)));
      if (counted.includes(undefined)) throw new Error('hit counter row missing');
      for (let i = 0; i < batch.length; i++) settleHitGroup(batch[i], counted[i] as number);
    };
    try {
      await run(groups);
    } catch {
      // e.g. one rule was deleted meanwhile (foreign key): count each rule on its own
      for (const g of groups) await run([g]).catch((err) => failHitGroup(g, err));
    }
  }

  /** Runs `task` after the tasks of `key` queued before it in this process, one at a time. */
  private serial<T>(key: string, task: () => Promise<T>): Promise<T> {
    const mine = (this.queues.get(key) ?? Promise.resolve()).then(task, task);
    this.queues.set(key, mine);
    const forget = () => {
      if (this.queues.get(key) === mine) this.queues.delete(key);
    };
    mine.then(forget, forget);
    return mine;
  }

  /** Runs `work` on one pooled client inside a transaction holding the advisory lock of `key`. */
  private async inLock<T>(key: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      await run(client, LOCK, [key]);
      const out = await work(client);
      await client.query('COMMIT');
      return out;
    } catch (e) {
      // a client that cannot even roll back is discarded, not given back to the pool
      await client.query('ROLLBACK').catch((err: Error) => {
        broken = err;
      });
      throw e;
    } finally {
      client.release(broken);
    }
  }

  /**
   * Group commit per key: the work asked for while the key's transaction is under way (in this
   * process) waits, and then goes into the next transaction together, in the order it came.
   * `run` answers each piece's result, or the Error that piece alone failed with. When the
   * transaction itself fails (one piece broke it, e.g. its project was deleted meanwhile), its
   * pieces are run again one transaction each, in order, so that one bad piece fails alone; a
   * failure before any work ran (no connection) fails them all.
   */
  private joined<W, R>(
    key: string,
    work: W,
    runBatch: (client: pg.PoolClient, batch: readonly W[]) => Promise<(R | Error)[]>,
  ): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const waiting = this.waiting.get(key) as Joining<W, R>[] | undefined;
      if (waiting && waiting.length < MAX_JOINED) {
        waiting.push({ work, resolve, reject });
        return;
      }
      const batch: Joining<W, R>[] = [{ work, resolve, reject }];
      this.waiting.set(key, batch);
      // from the moment the lock is held, new work starts the next batch
      const close = () => {
        if (this.waiting.get(key) === batch) this.waiting.delete(key);
        return batch.map((w) => w.work);
      };
      let started = false;
      const task = async (): Promise<(R | Error)[]> => {
        try {
          return await this.inLock(key, (client) => {
            started = true;
            const works = close();
            this.joinedTransactions++;
            this.joinedWork += works.length;
            return runBatch(client, works);
          });
        } catch (err) {
          close();
          if (!started || batch.length === 1) throw err;
          const out: (R | Error)[] = [];
          for (const w of batch)
            out.push(await this.inLock(key, (c) => runBatch(c, [w.work])).then((r) => r[0], toError));
          return out;
        }
      };
      this.serial(key, task).then(
        (results) => {
          for (let i = 0; i < batch.length; i++) {
            const r = results[i];
            if (r instanceof Error) batch[i].reject(r);
            else batch[i].resolve(r);
          }
        },
        (err) => {
          for (const w of batch) w.reject(err);
        },
      );
    });
  }

  /**
   * Collection commands are group-committed per (project, collection, session): the commands of
   * one transaction run in order on its connection, and whether the session's copy exists is read
   * once per transaction, not once per command. Creates — the common load — are batched across
   * collections and sessions instead (pg-creates.ts): a handful of statements for a whole batch.
   */
  collection(
    ref: collections.CollectionRef,
    cmd: collections.CollectionCommand,
  ): Promise<collections.CollectionResult> {
    if (cmd.op === 'create') return this.creates.create(ref, cmd);
    return this.joined<CollectionWork, collections.CollectionResult>(
      collectionKey(ref),
      { ref, cmd },
      (client, works) => runCommands(client, works),
    );
  }

  collectionInto(
    ref: collections.CollectionRef,
    cmd: collections.CollectionCommand,
    waiter: Waiter<collections.CollectionResult>,
  ): void {
    this.collection(ref, cmd).then(
      (v) => settleWaiter(waiter, v),
      (e) => failWaiter(waiter, e),
    );
  }

  storage(owner: StorageOwner, session: string): Promise<Map<string, string>> {
    return run(this.pool, STORAGE[owner.kind].read, [owner.id, session]).then((r) => toMap(r.rows));
  }

  /**
   * Storage writes are group-committed per owner and session: the writes of one transaction are
   * computed in order from the values before each — one read, one statement per changed name —
   * instead of a transaction (five round trips) each.
   */
  updateStorage(owner: StorageOwner, session: string, write: StorageWrite): Promise<Map<string, string>> {
    const key = `storage:${owner.kind}:${owner.id}:${session}`;
    return this.joined<StorageWrite, Map<string, string>>(key, write, (client, writes) =>
      this.writeStorage(client, owner, session, writes),
    );
  }

  /** `updateStorage`'s promise handed on to the waiter (the round trip's own promises are there anyway). */
  updateStorageInto(
    owner: StorageOwner,
    session: string,
    write: StorageWrite,
    waiter: Waiter<Map<string, string>>,
  ): void {
    // settled as the group commit settles its waiters: a waiter that throws rejects no promise here
    this.updateStorage(owner, session, write).then(
      (v) => settleEach([waiter], [v]),
      (e) => failEach([waiter], e),
    );
  }

  /** One transaction's writes: each one's storage after it, or the error it threw. */
  private async writeStorage(
    client: pg.PoolClient,
    owner: StorageOwner,
    session: string,
    batch: readonly StorageWrite[],
  ): Promise<(Map<string, string> | Error)[]> {
    const { read, upsert, remove } = STORAGE[owner.kind];
    const { out, changed } = applyStorageWrites(toMap((await run(client, read, [owner.id, session])).rows), batch);
    const now = Date.now();
    for (const [name, value] of changed) {
      if (value === null) await run(client, remove, [owner.id, session, name]);
      else await run(client, upsert, [owner.id, session, name, value, now]);
    }
    return out;
  }

  async appendLog(rows: LogRow[]): Promise<void> {
    for (let i = 0; i < rows.length; i += PG_LOG_CHUNK) {
      const chunk = rows.slice(i, i + PG_LOG_CHUNK);
      let text = this.logStatements.get(chunk.length);
      if (text === undefined) {
        text = numbered(logInsert(chunk.length));
        if (this.logStatements.size < 64) this.logStatements.set(chunk.length, text);
      }
      await this.pool.query(text, logArgs(chunk));
    }
  }
}
