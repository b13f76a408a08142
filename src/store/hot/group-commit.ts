/**
 * Group commit: the writes that the requests of one event-loop turn ask for are committed together
 * at the end of the turn (setImmediate), and each request gets its result — and so sends its
 * answer — only after that commit. As durable as a commit per request, for a fraction of the cost
 * under load. Hits of one rule and session in one turn are one group: one statement adds them
 * all, and the n requests get the n consecutive counts in the order they asked.
 *
 * At most one commit is in flight: a commit that answers with a promise (PostgreSQL's round trip)
 * holds the next one back, and everything asked for meanwhile joins it, whatever the number of turns
 * — so under load a round trip carries every waiting request's hits in one statement, instead of
 * one statement per turn competing for the pool's connections. A synchronous commit (SQLite)
 * holds nothing back for a round trip, but may wait a few turns (`turns`) while few writes are
 * pending (`enough`): under load each turn brings a handful of requests (what one poll of the
 * sockets returned), and a commit — its statements, its WAL frames — then carries several turns'
 * worth. Idle, the extra turns pass at once (an empty turn is microseconds).
 *
 * The scheduler is shared; what a commit does is the dialect's (sqlite.ts, postgres.ts). A commit
 * must settle every op and group it is given; one that throws fails all of them.
 */
import type { Waiter } from '../../runtime/ports.js';

/**
 * Who waits for a result: a promise's resolving functions, or an object of the caller's own (the
 * mock path's counted rules, engine.ts: no promise per request). Neither should throw: a `resolve`
 * that does gets its error through its own `reject`, and a `reject` that throws is ignored, so the
 * other waiters of the commit hear theirs in any case (and a commit is never taken for failed,
 * and repeated, because of a waiter).
 */
export type { Waiter };

/** What was thrown, as an Error (a rejection handed on to a waiter). */
export const toError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

/** The requests of one turn that count a hit of one rule in one session. */
export interface HitGroup {
  readonly ruleId: string;
  readonly session: string;
  readonly waiters: Waiter<number>[];
}

/** A write of the commit: called as `o.op()` (a class's method may be it: sqlite.ts CollectionOp), then settled. */
export interface PendingOp {
  readonly op: () => unknown;
  readonly resolve: (v: unknown) => void;
  readonly reject: (e: unknown) => void;
}

/** A rule (or a storage's owner) and session as one map key: the id itself outside sessions (no
 * string built per request on the common path; an id never holds a NUL, so the two forms cannot meet). */
export const hitKey = (id: string, session: string) => (session === '' ? id : `${id}\u0000${session}`);

/** The group's hits were added and the counter is now `total`: its waiters get the last n counts, in order. */
export function settleHitGroup(group: HitGroup, total: number): void {
  const first = total - group.waiters.length + 1;
  for (let i = 0; i < group.waiters.length; i++) {
    const w = group.waiters[i];
    try {
      w.resolve(first + i);
    } catch (err) {
      failWaiter(w, err);
    }
  }
}

export function failHitGroup(group: HitGroup, err: unknown): void {
  failEach(group.waiters, err);
}

/** Each waiter hears its own result: `out[i]` for `waiters[i]`, an Error as a rejection. */
export function settleEach<T>(waiters: readonly Waiter<T>[], out: readonly (T | Error)[]): void {
  for (let i = 0; i < waiters.length; i++) {
    const w = waiters[i];
    const r = out[i];
    try {
      if (r instanceof Error) w.reject(r);
      else w.resolve(r);
    } catch (err) {
      failWaiter(w, err);
    }
  }
}

export function failEach(waiters: readonly Waiter<unknown>[], err: unknown): void {
  for (const w of waiters) failWaiter(w, err);
}

/** One waiter hears its result; a `resolve` that throws gets its error through its `reject` (see Waiter). */
export function settleWaiter<T>(w: Waiter<T>, v: T): void {
  try {
    w.resolve(v);
  } catch (err) {
    failWaiter(w, err);
  }
}

export function failWaiter(w: Waiter<unknown>, err: unknown): void {
  try {
    w.reject(err);
  } catch {
    // the waiter's own failure path failed: nothing is left to tell it (see Waiter)
  }
}

/** How long a synchronous commit may wait for more writes. */
export interface Spread {
  /** turns it may wait past the first */
  readonly turns: number;
  /** it waits no longer once this many writes are pending */
  readonly enough: number;
}

export class GroupCommit {
  private ops: PendingOp[] = [];
  private hits = new Map<string, HitGroup>();
  /** writes pending (ops and hits), and the turns the next commit has waited */
  private pending = 0;
  private waited = 0;
  private scheduled = false;
  /** a commit's round trip is under way: the next one waits for it */
  private inFlight = false;
  /** commits made, and the most hits one of them carried (what the unit test checks batching by) */
  commitCount = 0;
  largestHitCommit = 0;

  constructor(
    private readonly commit: (ops: PendingOp[], hits: HitGroup[]) => void | Promise<void>,
    private readonly spread: Spread = { turns: 0, enough: 0 },
  ) {}

  /** Joins this turn's group of hits of the rule in the session. */
  hit(ruleId: string, session: string): Promise<number> {
    return new Promise<number>((resolve, reject) => this.hitInto(ruleId, session, { resolve, reject }));
  }

  /** `hit`, with the count handed to `waiter` once committed. */
  hitInto(ruleId: string, session: string, waiter: Waiter<number>): void {
    const key = hitKey(ruleId, session);
    let group = this.hits.get(key);
    if (!group) {
      group = { ruleId, session, waiters: [] };
      this.hits.set(key, group);
    }
    group.waiters.push(waiter);
    this.pending++;
    this.schedule();
  }

  /** Runs `o.op` in this turn's commit: `o` hears its result once committed. */
  enqueue(o: PendingOp): void {
    this.ops.push(o);
    this.pending++;
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    if (this.inFlight || (this.ops.length === 0 && this.hits.size === 0)) return;
    if (this.waited < this.spread.turns && this.pending < this.spread.enough) {
      this.waited++;
      this.schedule();
      return;
    }
    this.waited = 0;
    this.pending = 0;
    const ops = this.ops;
    const hits = [...this.hits.values()];
    this.ops = [];
    this.hits = new Map();
    this.commitCount++;
    let n = 0;
    for (const g of hits) n += g.waiters.length;
    if (n > this.largestHitCommit) this.largestHitCommit = n;
    const failAll = (err: unknown) => {
      for (const o of ops) o.reject(err);
      for (const g of hits) failHitGroup(g, err);
    };
    try {
      const done = this.commit(ops, hits);
      if (!done) return;
      this.inFlight = true;
      done.then(undefined, failAll).then(() => {
        this.inFlight = false;
        this.flush(); // what arrived during the round trip goes at once
      });
    } catch (err) {
      failAll(err);
    }
  }
}
