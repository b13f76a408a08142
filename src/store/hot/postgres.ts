/**
 * HotState on PostgreSQL (pg pool). Hits: one `unnest` upsert (a prepared statement) for all rules
 * and sessions that asked since the last round trip, at most one in flight per process
 * (group-commit.ts); each rule counted alone when the batch fails (e.g. a rule deleted meanwhile).
 * Storage updates: a transaction holding an advisory lock on (owner, session), queued per owner
 * and session in the process so that at most one pooled connection per key waits for
 * the cross-process lock and a hot endpoint cannot take the whole pool from the rest of the
 * traffic. The request log: multi-row inserts of up to 500 entries.
 */
import type pg from 'pg';
import { drive } from '../../shared/steps.js';
import * as collections from './collections.js';
import { failHitGroup, GroupCommit, type HitGroup, hitKey, settleHitGroup } from './group-commit.js';
import type { HotState, LogRow, StorageOwner, StorageWrite } from './hot-state.js';
import {
  COLLECTION,
  HIT_CONFLICT,
  logArgs,
  logInsert,
  numbered,
  type StorageKind,
  storageStatements,
} from './statements.js';

const HIT_BATCH = `INSERT INTO rule_hits (rule_id, session, hits, touched_at)
  SELECT t.r, t.s, t.c, $4 FROM unnest($1::text[], $2::text[], $3::int[]) AS t(r, s, c)
  ${HIT_CONFLICT} RETURNING rule_id, session, hits`;
const numberedStorage = (kind: StorageKind) => {
  const t = storageStatements(kind);
  return { read: numbered(t.read), upsert: numbered(t.upsert), remove: numbered(t.remove) };
};
const STORAGE = { endpoint: numberedStorage('endpoint'), project: numberedStorage('project') };
/** 500 rows × 5 parameters: far below PostgreSQL's 65,535 parameters per statement */
const PG_LOG_CHUNK = 500;

const COL = Object.fromEntries(Object.entries(COLLECTION).map(([k, sql]) => [k, numbered(sql)])) as Record<
  keyof typeof COLLECTION,
  string
>;

interface StorageWaiter {
  readonly write: StorageWrite;
  readonly resolve: (m: Map<string, string>) => void;
  readonly reject: (e: unknown) => void;
}

const toMap = (rows: { name: string; value: string }[]) => new Map(rows.map((x) => [x.name, x.value]));

export class PostgresHot implements HotState {
  private readonly commits = new GroupCommit((_ops, hits) => this.commitHits(hits));
  /** Tail of the queue of storage updates per endpoint and session in this process. */
  private readonly storageQueues = new Map<string, Promise<unknown>>();
  /** Storage writes waiting for their key's next transaction (updateStorage). */
  private readonly storageWaiting = new Map<string, StorageWaiter[]>();
  private readonly logStatements = new Map<number, string>();

  constructor(private readonly pool: pg.Pool) {}

  hit(ruleId: string, session: string): Promise<number> {
    return this.commits.hit(ruleId, session);
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
      for (const g of batch) {
        const total = totals.get(hitKey(g.ruleId, g.session));
        if (total === undefined) throw new Error('hit counter row missing');
        settleHitGroup(g, total);
      }
    };
    try {
      await run(groups);
    } catch {
      // e.g. one rule was deleted meanwhile (foreign key): count each rule on its own
      for (const g of groups) await run([g]).catch((err) => failHitGroup(g, err));
    }
  }

  /** Runs `work` on one pooled client inside a transaction holding the advisory lock of `key`. */
  private queued<T>(key: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const locked = () => this.inLock(key, work);
    const mine = (this.storageQueues.get(key) ?? Promise.resolve()).then(locked, locked);
    this.storageQueues.set(key, mine);
    const forget = () => {
      if (this.storageQueues.get(key) === mine) this.storageQueues.delete(key);
    };
    mine.then(forget, forget);
    return mine;
  }

  private async inLock<T>(key: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
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

  collection(
    ref: collections.CollectionRef,
    cmd: collections.CollectionCommand,
  ): Promise<collections.CollectionResult> {
    const k = [ref.projectId, ref.name, ref.session];
    return this.queued(`collection:${k.join(':')}`, (client) => {
      const rows = async (sql: string, args: unknown[]) => (await client.query(sql, args)).rows;
      const t: collections.ItemTable = {
        materialized: async () => {
          const [row] = await rows(COL.materialized, k);
          return row === undefined ? null : Number(row.t);
        },
        markMaterialized: async () => void (await rows(COL.mark, [...k, Date.now()])),
        get: async (id) => (await rows(COL.get, [...k, id]))[0]?.data,
        insert: async (id, ord, data) => void (await rows(COL.insert, [...k, id, ord, data, Date.now()])),
        update: async (id, data) => void (await rows(COL.update, [data, Date.now(), ...k, id])),
        remove: async (id) => void (await rows(COL.remove, [...k, id])),
        all: async () => (await rows(COL.all, k)).map((r) => r.data),
        count: async () => Number((await rows(COL.count, k))[0].n),
        maxOrd: async () => Number((await rows(COL.maxOrd, k))[0].m),
      };
      return Promise.resolve(drive(collections.execute(ref, cmd, t)));
    });
  }

  storage(owner: StorageOwner, session: string): Promise<Map<string, string>> {
    return this.pool.query(STORAGE[owner.kind].read, [owner.id, session]).then((r) => toMap(r.rows));
  }

  /**
   * Storage writes are group-committed per owner and session: the writes asked for while that
   * storage's transaction is under way wait (this process's queue of the key) and then go in one
   * transaction together — one read, each write computed in order from the values before it, one
   * statement per changed name — instead of a transaction (five round trips) each.
   */
  updateStorage(owner: StorageOwner, session: string, write: StorageWrite): Promise<Map<string, string>> {
    const key = `storage:${owner.kind}:${owner.id}:${session}`;
    return new Promise((resolve, reject) => {
      const waiting = this.storageWaiting.get(key);
      if (waiting) {
        waiting.push({ write, resolve, reject });
        return;
      }
      const batch: StorageWaiter[] = [{ write, resolve, reject }];
      this.storageWaiting.set(key, batch);
      this.queued(key, (client) => {
        // from here on, new writes start the next batch
        if (this.storageWaiting.get(key) === batch) this.storageWaiting.delete(key);
        return this.writeStorage(client, owner, session, batch);
      }).then(
        (maps) => {
          for (let i = 0; i < maps.length; i++) {
            const m = maps[i];
            if (m instanceof Error) batch[i].reject(m);
            else batch[i].resolve(m);
          }
        },
        (err) => {
          if (this.storageWaiting.get(key) === batch) this.storageWaiting.delete(key);
          for (const w of batch) w.reject(err);
        },
      );
    });
  }

  /** One transaction for a batch: each waiter's storage after its write, or the error its write threw. */
  private async writeStorage(
    client: pg.PoolClient,
    owner: StorageOwner,
    session: string,
    batch: StorageWaiter[],
  ): Promise<(Map<string, string> | Error)[]> {
    const { read, upsert, remove } = STORAGE[owner.kind];
    const current = toMap((await client.query(read, [owner.id, session])).rows);
    const changed = new Map<string, string | null>();
    const out: (Map<string, string> | Error)[] = [];
    for (const w of batch) {
      let writes: [string, string | null][];
      try {
        writes = w.write(current);
      } catch (err) {
        out.push(err instanceof Error ? err : new Error(String(err))); // a write that throws stores nothing
        continue;
      }
      for (const [name, value] of writes) {
        if (value === null) current.delete(name);
        else current.set(name, value);
        changed.set(name, value);
      }
      out.push(new Map(current));
    }
    const now = Date.now();
    for (const [name, value] of changed) {
      if (value === null) await client.query(remove, [owner.id, session, name]);
      else await client.query(upsert, [owner.id, session, name, value, now]);
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
