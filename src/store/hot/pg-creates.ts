/**
 * Creates into collections on PostgreSQL, batched across collections and sessions: the creates asked
 * for while the batches in flight run go into the next one together, whatever their collection and
 * session. A batch is one statement, its own transaction: `mockyard_create_batch`
 * (migrations/pg-create-batch.ts) takes the advisory locks of all its keys (in one order on every
 * process, so two batches never wait for each other in a cycle), and for each collection and
 * session whose creates fit its copy writes the items and their count — one round trip, the locks
 * held for no longer than the statement. The items are made ready here first (ids, JSON:
 * hot/collections.ts `prepareCreates`); a key whose creates need more (no copy yet, a seed id, an id
 * twice, a cap) runs command by command in a transaction of its own after it. A batch that fails is
 * run again a key at a time, and a key that fails a create at a time, so one bad create fails alone.
 * Two batches may be in flight, never with the same key.
 *
 * A batch that ends answers its creates, and their clients, under load, send their next ones within
 * a fraction of a millisecond: for `gatherMs` after a batch ends, the next one waits until as many
 * creates are queued as it answered (or the time is up), so a closed loop of clients keeps one batch
 * a round instead of splitting into cohorts that each pay a statement, a commit and the other
 * processes' lock waits (docs/architecture.md, "Creates gathered").
 */
import type pg from 'pg';
import * as collections from './collections.js';
import { toError } from './group-commit.js';
import { type CollectionWork, type Named, run, runCommands } from './pg-collections.js';

const MAX_BATCH = 1000;

const LOCK_MANY: Named = {
  name: 'mockyard_lock_many',
  text: 'SELECT pg_advisory_xact_lock(h) FROM (SELECT DISTINCT hashtext(k) AS h FROM unnest($1::text[]) AS k ORDER BY h) AS l',
};
/** the function's form that takes whether each id was made here (migration 0018) */
const CREATE_BATCH: Named = {
  name: 'mockyard_create_batch_fresh',
  text: `SELECT g, item_id FROM mockyard_create_batch($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[],
    $6::bigint[], $7::bigint[], $8::int[], $9::text[], $10::text[], $11::bigint[], $12, $13, $14, $15, $16::boolean[])`,
};

/** The lock key of a collection and session: the one postgres.ts's per-key transactions take. */
export const collectionKey = (r: collections.CollectionRef) => `collection:${r.projectId}:${r.name}:${r.session}`;

interface Pending {
  readonly work: CollectionWork;
  readonly resolve: (r: collections.CollectionResult) => void;
  readonly reject: (e: unknown) => void;
}

/** One collection and session's creates in a batch, and what came of them. */
interface Group {
  readonly key: string;
  readonly ref: collections.CollectionRef;
  readonly pending: Pending[];
  /** set once its writes are committed */
  results?: collections.CollectionResult[];
}

/**
 * Batches in flight at once per process: while one waits for its round trips the next is sent; a
 * collection and session in a batch in flight waits for it (its creates keep their order).
 */
const IN_FLIGHT = 2;

/**
 * How long after a batch ends the next one waits for as many creates as it answered: S8-pg (two
 * processes, 25 clients each) read 11.9–12.4k creates a second at 25 a batch with it, 10.6–10.9k at
 * 12.5 without (bench/README.md); a lone create after a batch waits this long at most.
 */
const GATHER_MS = 1;

export class CreateBatcher {
  private queue: Pending[] = [];
  private scheduled = false;
  private inFlight = 0;
  /** the keys of the batches in flight */
  private busy = new Set<string>();
  /** batches run, and the creates they held (read by the tests) */
  batches = 0;
  batched = 0;
  /** the creates the batch statement took (the rest ran command by command) */
  oneTrip = 0;
  /** creates the next batch waits for, while `gathering` runs: as many as the last batch answered */
  private expected = 0;
  private gathering: NodeJS.Timeout | undefined;
  private readonly gatherMs: number;

  constructor(
    private readonly pool: pg.Pool,
    options: { gatherMs?: number } = {},
  ) {
    this.gatherMs = options.gatherMs ?? GATHER_MS;
  }

  create(ref: collections.CollectionRef, cmd: collections.CollectionCommand): Promise<collections.CollectionResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ work: { ref, cmd }, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= IN_FLIGHT || this.queue.length < this.expected) return;
    this.gathered();
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    if (this.inFlight >= IN_FLIGHT || this.queue.length === 0) return;
    // the queue's creates whose collection and session no batch in flight holds, in order
    const groups = new Map<string, Group>();
    const rest: Pending[] = [];
    let taken = 0;
    for (const p of this.queue) {
      const key = collectionKey(p.work.ref);
      if (this.busy.has(key) || taken >= MAX_BATCH) {
        rest.push(p);
        continue;
      }
      let g = groups.get(key);
      if (!g) {
        g = { key, ref: p.work.ref, pending: [] };
        groups.set(key, g);
      }
      g.pending.push(p);
      taken++;
    }
    if (groups.size === 0) return;
    this.queue = rest;
    this.inFlight++;
    for (const key of groups.keys()) this.busy.add(key);
    try {
      await this.settle([...groups.values()]);
    } finally {
      this.inFlight--;
      for (const key of groups.keys()) this.busy.delete(key);
      this.gather(taken);
      if (this.queue.length > 0) this.schedule();
    }
  }

  /** The next batch waits up to `gatherMs` for `n` creates (those the batch that ended answered). */
  private gather(n: number): void {
    clearTimeout(this.gathering);
    this.expected = n;
    this.gathering = setTimeout(() => {
      this.gathering = undefined;
      this.expected = 0;
      if (this.queue.length > 0) this.schedule();
    }, this.gatherMs);
  }

  /** The wait is over: the next batch goes with what is queued. */
  private gathered(): void {
    clearTimeout(this.gathering);
    this.gathering = undefined;
    this.expected = 0;
  }

  /** Runs the groups; those that failed, again a group at a time, then a create at a time. */
  private async settle(groups: Group[]): Promise<void> {
    let failure: unknown;
    try {
      await this.write(groups);
    } catch (err) {
      failure = err;
    }
    const left = groups.filter((g) => g.results === undefined);
    if (left.length < groups.length) {
      this.batches++;
      this.batched += groups.reduce((n, g) => n + (g.results ? g.pending.length : 0), 0);
    }
    for (const g of groups) if (g.results) answer(g);
    if (left.length === 0) return;
    if (left.length === 1 && left[0].pending.length === 1 && groups.length === 1) {
      left[0].pending[0].reject(toError(failure));
      return;
    }
    for (const g of left) {
      const alone = (pending: Pending[]): Group => ({ key: g.key, ref: g.ref, pending });
      const again = alone(g.pending);
      try {
        await this.write([again]);
      } catch (err) {
        failure = err;
      }
      if (again.results) answer(again);
      else if (g.pending.length === 1) g.pending[0].reject(toError(failure));
      else for (const p of g.pending) await this.settle([alone([p])]);
    }
  }

  /**
   * The batch: one statement for the groups whose items are ready, then the groups it left alone,
   * command by command in one transaction. A group's results are set once its writes are committed.
   */
  private async write(groups: Group[]): Promise<void> {
    const ready = new Map<Group, collections.NewItem[]>();
    for (const g of groups) {
      const made = collections.prepareCreates(g.pending.map((p) => p.work));
      if (made !== null) ready.set(g, made);
    }
    const slow = groups.filter((g) => !ready.has(g));
    if (ready.size > 0) slow.push(...(await this.createBatch(ready)));
    if (slow.length > 0) await this.transaction(slow);
  }

  /** One round trip for the groups whose items are ready: the groups it left alone. */
  private async createBatch(ready: Map<Group, collections.NewItem[]>): Promise<Group[]> {
    const list = [...ready];
    const refs = list.map(([g]) => g.ref);
    const ig: number[] = [];
    const ids: string[] = [];
    const datas: string[] = [];
    const lens: number[] = [];
    const fresh: boolean[] = [];
    list.forEach(([, made], i) => {
      for (const m of made) {
        ig.push(i + 1);
        ids.push(m.id);
        datas.push(m.data);
        lens.push(m.bytes);
        fresh.push(m.fresh);
      }
    });
    const { rows } = await run(this.pool, CREATE_BATCH, [
      list.map(([g]) => g.key),
      refs.map((r) => r.projectId),
      refs.map((r) => r.name),
      refs.map((r) => r.session),
      list.map(([, made]) => made.length),
      list.map(([, made]) => made.reduce((n, m) => n + m.bytes, 0)),
      refs.map((r) => r.base?.ids.length ?? -1),
      ig,
      ids,
      datas,
      lens,
      Date.now(),
      collections.COLLECTION_CAPS.items,
      collections.COLLECTION_CAPS.sessionBytes,
      collections.TOUCH_EVERY_MS,
      fresh,
    ]);
    const written = list.map(() => new Set<string>());
    const left = new Set<number>();
    for (const row of rows as { g: number; item_id: string | null }[]) {
      if (row.item_id === null) left.add(row.g - 1);
      else written[row.g - 1].add(row.item_id);
    }
    const slow: Group[] = [];
    list.forEach(([g, made], i) => {
      if (left.has(i)) slow.push(g);
      else {
        g.results = collections.createdResults(made, written[i]).results;
        this.oneTrip += made.length;
      }
    });
    return slow;
  }

  /** Groups command by command, in one transaction holding their locks. */
  private async transaction(groups: Group[]): Promise<void> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      await run(client, LOCK_MANY, [groups.map((g) => g.key)]);
      const results: collections.CollectionResult[][] = [];
      for (const g of groups)
        results.push(
          await runCommands(
            client,
            g.pending.map((p) => p.work),
          ),
        );
      await client.query('COMMIT');
      groups.forEach((g, i) => {
        g.results = results[i];
      });
    } catch (e) {
      await client.query('ROLLBACK').catch((err: Error) => {
        broken = err;
      });
      throw e;
    } finally {
      client.release(broken);
    }
  }
}

/** Answers a group's creates with their results. */
function answer(g: Group): void {
  g.pending.forEach((p, i) => {
    const r = g.results?.[i];
    if (r === undefined) p.reject(new Error('no result'));
    else p.resolve(r);
  });
}
