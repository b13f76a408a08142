/**
 * Creates into collections on PostgreSQL, batched across collections and sessions: the creates asked
 * for while the batches in flight run go into the next one together, whatever their collection and
 * session. One transaction takes the
 * advisory locks of all their keys (in one order on every process, so two batches never wait for
 * each other in a cycle), reads the sessions' copies and last positions in one statement, writes
 * every item in one insert and every count in one update — six round trips for the batch, where a
 * transaction per collection and session took six each. A key whose creates need more (no copy yet,
 * a seed id, an id twice, a cap: hot/collections.ts `createMany`) runs command by command in the same
 * transaction. A batch that fails is run again a key at a time, and a key that fails a create at a
 * time, so one bad create fails alone. Two batches may be in flight, never with the same key.
 */
import type pg from 'pg';
import type { Steps } from '../../shared/steps.js';
import * as collections from './collections.js';
import { toError } from './group-commit.js';
import { type CollectionWork, type Named, run, runCommands } from './pg-collections.js';

const MAX_BATCH = 1000;
const NUL = '\u0000';

const LOCK_MANY: Named = {
  name: 'mockyard_lock_many',
  text: 'SELECT pg_advisory_xact_lock(h) FROM (SELECT DISTINCT hashtext(k) AS h FROM unnest($1::text[]) AS k ORDER BY h) AS l',
};
/** the copies of many sessions, with the last position of each */
const SESSIONS_MANY: Named = {
  name: 'mockyard_col_sessions_many',
  text: `SELECT s.project_id AS p, s.collection AS c, s.session AS s, s.touched_at AS t, s.base, s.items, s.bytes,
      COALESCE((SELECT ord FROM collection_items i WHERE i.project_id = s.project_id AND i.collection = s.collection
        AND i.session = s.session ORDER BY ord DESC LIMIT 1), 0) AS top
    FROM collection_sessions s JOIN unnest($1::text[], $2::text[], $3::text[]) AS k(p, c, s)
      ON s.project_id = k.p AND s.collection = k.c AND s.session = k.s`,
};
const INSERT_MANY: Named = {
  name: 'mockyard_col_insert_many',
  text: `INSERT INTO collection_items (project_id, collection, session, item_id, ord, data, touched_at)
    SELECT u.p, u.c, u.s, u.id, u.ord, u.data, $7
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[]) AS u(p, c, s, id, ord, data)
    ON CONFLICT DO NOTHING RETURNING project_id, collection, session, item_id`,
};
const ADJUST_MANY: Named = {
  name: 'mockyard_col_adjust_many',
  text: `UPDATE collection_sessions AS cs SET items = cs.items + u.i, bytes = cs.bytes + u.b,
      touched_at = GREATEST(cs.touched_at, u.t)
    FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[]) AS u(p, c, s, i, b, t)
    WHERE cs.project_id = u.p AND cs.collection = u.c AND cs.session = u.s`,
};

/** The lock key of a collection and session: the one postgres.ts's per-key transactions take. */
export const collectionKey = (r: collections.CollectionRef) => `collection:${r.projectId}:${r.name}:${r.session}`;

interface Pending {
  readonly work: CollectionWork;
  readonly resolve: (r: collections.CollectionResult) => void;
  readonly reject: (e: unknown) => void;
}

/** One collection and session's creates in a batch, and what the plan made of them. */
interface Group {
  readonly key: string;
  readonly ref: collections.CollectionRef;
  readonly pending: Pending[];
  results?: (collections.CollectionResult | Error)[];
  /** the fast path's generator, paused at its insert */
  gen?: Steps<collections.CollectionResult[] | null>;
  items?: readonly { id: string; data: string }[];
  base?: number;
  top?: number;
  added: number;
  bytes: number;
  touched: number;
}

const PAUSE = Symbol('insert');
class NotHere extends Error {}

/**
 * Batches in flight at once per process: while one waits for its round trips the next is sent; a
 * collection and session in a batch in flight waits for it (its creates keep their order).
 */
const IN_FLIGHT = 2;

export class CreateBatcher {
  private queue: Pending[] = [];
  private scheduled = false;
  private inFlight = 0;
  /** the keys of the batches in flight */
  private busy = new Set<string>();
  /** batches run, and the creates they held (read by the tests) */
  batches = 0;
  batched = 0;

  constructor(private readonly pool: pg.Pool) {}

  create(ref: collections.CollectionRef, cmd: collections.CollectionCommand): Promise<collections.CollectionResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ work: { ref, cmd }, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= IN_FLIGHT) return;
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
        g = { key, ref: p.work.ref, pending: [], added: 0, bytes: 0, touched: 0 };
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
      if (this.queue.length > 0) this.schedule();
    }
  }

  /** Runs the groups in one transaction; when it fails, a group at a time, then a create at a time. */
  private async settle(groups: Group[]): Promise<void> {
    const answer = (g: Group) =>
      g.pending.forEach((p, i) => {
        const r = g.results?.[i];
        if (r instanceof Error || r === undefined) p.reject(r ?? new Error('no result'));
        else p.resolve(r);
      });
    try {
      await this.transaction(groups);
      this.batches++;
      this.batched += groups.reduce((n, g) => n + g.pending.length, 0);
      for (const g of groups) answer(g);
      return;
    } catch (err) {
      if (groups.length === 1 && groups[0].pending.length === 1) {
        groups[0].pending[0].reject(err);
        return;
      }
    }
    for (const g of groups) {
      const alone = (pending: Pending[]): Group => ({ ...g, pending, added: 0, bytes: 0, touched: 0 });
      try {
        const again = alone(g.pending);
        await this.transaction([again]);
        answer(again);
      } catch (err) {
        if (g.pending.length === 1) g.pending[0].reject(toError(err));
        else for (const p of g.pending) await this.settle([alone([p])]);
      }
    }
  }

  private async transaction(groups: Group[]): Promise<void> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      await run(client, LOCK_MANY, [groups.map((g) => g.key)]);
      await this.write(client, groups);
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch((err: Error) => {
        broken = err;
      });
      for (const g of groups) g.results = undefined;
      throw e;
    } finally {
      client.release(broken);
    }
  }

  /** The batch's statements, on its transaction's connection, under its locks. */
  private async write(client: pg.PoolClient, groups: Group[]): Promise<void> {
    const col = (f: (r: collections.CollectionRef) => string) => groups.map((g) => f(g.ref));
    const found = new Map<string, Record<string, unknown>>();
    const keys = [col((r) => r.projectId), col((r) => r.name), col((r) => r.session)];
    for (const row of (await run(client, SESSIONS_MANY, keys)).rows) found.set([row.p, row.c, row.s].join(NUL), row);
    const slow: Group[] = [];
    const fast: Group[] = [];
    for (const g of groups) {
      const row = found.get([g.ref.projectId, g.ref.name, g.ref.session].join(NUL));
      if (row && this.plan(g, row)) fast.push(g);
      else slow.push(g);
    }
    if (fast.length > 0) await this.insert(client, fast);
    // the rest command by command (a copy to make, a seed id, a cap …), on the same transaction
    for (const g of slow)
      g.results = await runCommands(
        client,
        g.pending.map((p) => p.work),
      );
  }

  /** Runs a group's createMany up to its insert; false when the group needs the slow path. */
  private plan(g: Group, row: Record<string, unknown>): boolean {
    const copy: collections.SessionCopy = {
      touched: Number(row.t),
      base: Number(row.base),
      items: Number(row.items),
      bytes: Number(row.bytes),
    };
    const refuse = () => {
      throw new NotHere();
    };
    const t: collections.ItemTable = {
      copy: () => copy,
      create: refuse,
      touch: (now) => {
        g.touched = now;
      },
      adjust: (i, b) => {
        g.added += i;
        g.bytes += b;
      },
      get: refuse,
      insert: refuse,
      update: refuse,
      place: refuse,
      remove: refuse,
      append: refuse,
      all: refuse,
      appendMany: (items, base) => {
        g.items = items;
        g.base = base;
        return PAUSE as unknown as Set<string>;
      },
    };
    const gen = collections.createMany(
      g.pending.map((p) => p.work),
      t,
      1,
    );
    try {
      let r = gen.next();
      while (!r.done && r.value !== PAUSE) r = gen.next(r.value);
      if (r.done) return false; // null: not for the batch path
    } catch (e) {
      if (e instanceof NotHere) return false;
      throw e;
    }
    g.gen = gen;
    g.top = Math.max(Number(row.top), g.base ?? 0);
    return true;
  }

  /** One insert for every planned group's items, then one update of their counts. */
  private async insert(client: pg.PoolClient, groups: Group[]): Promise<void> {
    const cols: [string[], string[], string[], string[], number[], string[]] = [[], [], [], [], [], []];
    for (const g of groups)
      (g.items ?? []).forEach((it, i) => {
        cols[0].push(g.ref.projectId);
        cols[1].push(g.ref.name);
        cols[2].push(g.ref.session);
        cols[3].push(it.id);
        cols[4].push((g.top ?? 0) + i + 1);
        cols[5].push(it.data);
      });
    const written = new Set<string>();
    for (const row of (await run(client, INSERT_MANY, [...cols, Date.now()])).rows)
      written.add([row.project_id, row.collection, row.session, row.item_id].join(NUL));
    for (const g of groups) {
      const prefix = [g.ref.projectId, g.ref.name, g.ref.session, ''].join(NUL);
      const mine = new Set((g.items ?? []).map((it) => it.id).filter((id) => written.has(prefix + id)));
      const gen = g.gen as Steps<collections.CollectionResult[] | null>;
      let r = gen.next(mine);
      while (!r.done) r = gen.next(r.value);
      g.results = r.value ?? undefined;
    }
    const counted = groups.filter((g) => g.added !== 0 || g.bytes !== 0 || g.touched !== 0);
    if (counted.length > 0)
      await run(client, ADJUST_MANY, [
        counted.map((g) => g.ref.projectId),
        counted.map((g) => g.ref.name),
        counted.map((g) => g.ref.session),
        counted.map((g) => g.added),
        counted.map((g) => g.bytes),
        counted.map((g) => g.touched),
      ]);
  }
}
