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
import { drive } from '../../shared/steps.js';
import * as collections from './collections.js';
import { failHitGroup, GroupCommit, type HitGroup, hitKey, settleHitGroup, type Waiter } from './group-commit.js';
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
/**
 * The hot path's statements are named: each pooled connection parses and plans one once, not on
 * every round trip (PostgreSQL plans it again when the table's statistics change).
 */
interface Named {
  readonly name: string;
  readonly text: string;
}
const named = (name: string, text: string): Named => ({ name: `mockyard_${name}`, text: numbered(text) });
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

const COL = Object.fromEntries(Object.entries(COLLECTION).map(([k, sql]) => [k, named(`col_${k}`, sql)])) as Record<
  keyof typeof COLLECTION,
  Named
>;
/** `append` for many items: their positions follow the last one (or the seed's, $6) in the order given. */
const APPEND_MANY: Named = {
  name: 'mockyard_col_append_many',
  text: `INSERT INTO collection_items (project_id, collection, session, item_id, ord, data, touched_at)
    SELECT $1, $2, $3, u.id, top.ord + u.n, u.data, $7
    FROM unnest($4::text[], $5::text[]) WITH ORDINALITY AS u(id, data, n),
      (SELECT GREATEST(COALESCE((SELECT ord FROM collection_items
        WHERE project_id = $1 AND collection = $2 AND session = $3 ORDER BY ord DESC LIMIT 1), 0), $6::bigint) AS ord) AS top
    ON CONFLICT DO NOTHING RETURNING item_id`,
};
const run = (c: pg.Pool | pg.PoolClient, s: Named, values: unknown[]) =>
  c.query({ name: s.name, text: s.text, values });

/** One piece of work waiting for its key's next transaction (`joined`). */
interface Joining<W, R> {
  readonly work: W;
  readonly resolve: (r: R) => void;
  readonly reject: (e: unknown) => void;
}
/** A collection command with the collection as it was compiled when the command came. */
interface CollectionWork {
  readonly ref: collections.CollectionRef;
  readonly cmd: collections.CollectionCommand;
}

const toError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));
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
  /** creates written by one insert with the rest of their batch (createMany) */
  batchedCreates = 0;
  private readonly logStatements = new Map<number, string>();

  constructor(private readonly pool: pg.Pool) {}

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
   * once per transaction, not once per command.
   */
  collection(
    ref: collections.CollectionRef,
    cmd: collections.CollectionCommand,
  ): Promise<collections.CollectionResult> {
    const key = `collection:${ref.projectId}:${ref.name}:${ref.session}`;
    return this.joined<CollectionWork, collections.CollectionResult>(key, { ref, cmd }, (client, works) =>
      runCommands(client, works, () => {
        this.batchedCreates += works.length;
      }),
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

  /** One transaction's writes: each one's storage after it, or the error it threw. */
  private async writeStorage(
    client: pg.PoolClient,
    owner: StorageOwner,
    session: string,
    batch: readonly StorageWrite[],
  ): Promise<(Map<string, string> | Error)[]> {
    const { read, upsert, remove } = STORAGE[owner.kind];
    const current = toMap((await run(client, read, [owner.id, session])).rows);
    const changed = new Map<string, string | null>();
    const out: (Map<string, string> | Error)[] = [];
    for (const write of batch) {
      let writes: [string, string | null][];
      try {
        writes = write(current);
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

/**
 * One transaction's collection commands, in order, on its connection, over one table: the commands
 * of a batch share their key (project, collection, session). Whether the session's copy exists
 * (and when it was last touched) is read by the first command and known to the rest.
 */
async function runCommands(
  client: pg.PoolClient,
  works: readonly CollectionWork[],
  batched: () => void,
): Promise<collections.CollectionResult[]> {
  const { projectId, name, session } = works[0].ref;
  const k = [projectId, name, session];
  const rows = async (s: Named, args: unknown[]) => (await run(client, s, args)).rows;
  let copy: collections.SessionCopy | null | undefined;
  // the count and bytes the batch's commands added, written once before the batch commits
  let items = 0;
  let bytes = 0;
  const t: collections.ItemTable = {
    copy: async () => {
      if (copy === undefined) {
        const [row] = await rows(COL.session, k);
        copy =
          row === undefined
            ? null
            : { touched: Number(row.t), base: Number(row.base), items: Number(row.items), bytes: Number(row.bytes) };
      }
      return copy;
    },
    create: async (x) => {
      await rows(COL.create, [...k, x.touched, x.base, x.items, x.bytes]);
      copy = x;
    },
    touch: async (now) => void (await rows(COL.touch, [now, ...k])),
    adjust: (i, b) => {
      items += i;
      bytes += b;
    },
    get: async (id) => {
      const [row] = await rows(COL.get, [...k, id]);
      return row === undefined ? undefined : { data: row.data, ord: Number(row.ord) };
    },
    insert: async (id, ord, data) => void (await rows(COL.insert, [...k, id, ord, data, Date.now()])),
    update: async (id, data) => void (await rows(COL.update, [data, Date.now(), ...k, id])),
    place: async (id, ord, data) => void (await rows(COL.place, [data, ord, Date.now(), ...k, id])),
    remove: async (id) => void (await rows(COL.remove, [...k, id])),
    all: async () => (await rows(COL.all, k)).map((r) => ({ id: r.id, ord: Number(r.ord), data: r.data })),
    append: async (id, data, base) =>
      (await run(client, COL.append, [...k, id, base, base, ...k, data, Date.now()])).rowCount === 1,
    appendMany: async (items, base) => {
      const args = [...k, items.map((x) => x.id), items.map((x) => x.data), base, Date.now()];
      return new Set((await run(client, APPEND_MANY, args)).rows.map((r) => r.item_id as string));
    },
  };
  // a batch of creates (the common load): one insert for all of them
  const many = await drive(collections.createMany(works, t));
  if (many !== null) {
    if (items !== 0 || bytes !== 0) await rows(COL.adjust, [items, bytes, ...k]);
    batched();
    return many;
  }
  const out: collections.CollectionResult[] = [];
  // each command with its own compiled collection (its seed and id field), on the batch's table
  for (const { ref, cmd } of works) out.push(await drive(collections.execute(ref, cmd, t)));
  if (items !== 0 || bytes !== 0) await rows(COL.adjust, [items, bytes, ...k]);
  return out;
}
