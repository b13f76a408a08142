/**
 * The request log: every mock request becomes an entry that is pushed to live subscribers at
 * once and written to the store in batches, off the hot path. Only the newest `keepPerProject`
 * entries of a project are kept, so a batch writes at most that many per project: under a
 * flood, older entries of the same batch are skipped instead of written and trimmed again
 * (counted in `coalesced`). The queue is bounded: past `maxQueue` the oldest unwritten entries
 * are dropped (and counted), never user state.
 * With PostgreSQL, entries written by other processes are picked up by polling the log's
 * sequence while anyone is subscribed, so every process streams every process's traffic.
 * Sequence numbers are taken at insert but become visible at commit, so two processes' batches
 * can appear out of order: a gap below the highest number seen is polled again for a while
 * (GAP_WAIT_MS) before it is taken for a rolled-back insert.
 */
import type { Logger } from 'pino';
import type { RequestLogEntry } from '../domain/model.js';
import { type Pending, Ring, settle } from './request-log-ring.js';

export type { LogRecord } from './request-log-ring.js';

import type { LogRow, LogStore } from './ports.js';

type Listener = (entry: RequestLogEntry) => void;

/**
 * The periodic flush writes at most `keepPerProject` entries of a project per flood interval (the
 * interval starts with the first write after the last one ended): a project that reached that many
 * is flooded, held until its interval ends, and then written once more — its ring's newest entries,
 * the older ones overwritten unwritten. Only the newest `keepPerProject` are kept, so under a flood
 * every further write would be trimmed again soon, burning CPU and disk (and, on PostgreSQL, the
 * database's core: S8-pg's ~2,000 requests a second a process were all written and trimmed again,
 * since each 250-ms flush held fewer than the ring's 1000). Reads through `list` still see every
 * answered request (they flush first), and live subscribers get each entry at once. With several
 * processes (PostgreSQL) the writes are how the other processes see this one's entries, so the
 * interval is 2 s (a process answering up to ~500 requests a second of a project is written every
 * flush); one process alone writes a flood every 10 s (the writes are then only what a crash would
 * keep): a flood of S1 spent ~0.8 µs of each request's ~31 µs on writing and trimming the log every
 * 2 s (CPU profile under wrk).
 */
export const FLOOD_WRITE_MS = { shared: 2000, single: 10_000 } as const;

/**
 * Entries spelled and written per step of a flush, the loop yielding between steps: a flooded
 * project's 1000 entries in one step held the event loop 16 ms (4.5 ms to spell them, 11 ms of
 * SQLite insert) every flood interval, which showed in mock traffic's p99; a step of 50 holds it
 * about a millisecond.
 */
const WRITE_CHUNK = 50;
/**
 * …and at most this many characters of bodies (request and answer) a step: 50 entries of S7's
 * 4.2 KB answers (~250 KB of rows) held the loop 6–13 ms a step, twenty steps a flood interval, which
 * was S7's p99 (21–59 ms in its later periods). A single larger entry is a step of its own.
 */
const WRITE_BODY_CHARS = 64 * 1024;

/** The characters of an entry's bodies: what its row's size and its spelling's cost go by. */
const bodyChars = (e: RequestLogEntry): number => e.body.length + (e.response?.body.length ?? 0);
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** How long a gap in the log's sequence is polled for a late commit. */
const GAP_WAIT_MS = 5000;
/** At most this many gaps are remembered (the oldest are given up first). */
const MAX_GAPS = 2000;

export interface RequestLogOptions {
  keepPerProject: number;
  flushMs?: number;
  maxQueue?: number;
  /** poll other processes' entries (PostgreSQL) */
  shared?: boolean;
  /** the clock of the flood interval (tests) */
  now?: () => number;
}

export class RequestLog {
  /** unwritten entries by project */
  private queue = new Map<string, Ring>();
  /** each project's flood interval: when it began and the entries written in it */
  private readonly windows = new Map<string, { start: number; written: number }>();
  private queued = 0;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly touched = new Map<string, number>();
  private flushing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private lastSeq = 0;
  /** sequence numbers below lastSeq not seen yet → when the gap was noticed */
  private readonly gaps = new Map<number, number>();
  private readonly localIds = new Set<string>();
  dropped = 0;
  coalesced = 0;

  constructor(
    private readonly store: LogStore,
    private readonly log: Logger,
    private readonly opts: RequestLogOptions,
  ) {}

  async start(): Promise<void> {
    const every = this.opts.flushMs ?? 250;
    this.timer = setInterval(() => void this.flush(false), every);
    this.timer.unref();
    if (this.opts.shared) {
      this.lastSeq = await this.store.logs.maxSeq();
      this.pollTimer = setInterval(() => void this.poll(), 250);
      this.pollTimer.unref();
    }
  }

  record(projectId: string, pending: Pending): void {
    const subs = this.listeners.get(projectId);
    // a streamed entry is settled once, for its subscribers and the store
    const entry = subs && 'rawHeaders' in pending ? settle(pending) : pending;
    let ring = this.queue.get(projectId);
    if (!ring) {
      ring = new Ring(this.opts.keepPerProject);
      this.queue.set(projectId, ring);
    }
    const before = ring.length;
    ring.push(entry);
    if (ring.length === before) {
      // an older entry of the same project was overwritten: it could never be among the newest kept
      this.coalesced++;
    } else if (++this.queued > (this.opts.maxQueue ?? 50_000)) {
      ring.dropOldest();
      this.queued--;
      this.dropped++;
    }
    if (subs) {
      const settled = entry as RequestLogEntry;
      if (this.opts.shared) this.rememberLocal(settled.id);
      for (const fn of subs) fn(settled);
    }
  }

  subscribe(projectId: string, fn: Listener): () => void {
    let set = this.listeners.get(projectId);
    if (!set) {
      set = new Set();
      this.listeners.set(projectId, set);
    }
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0) this.listeners.delete(projectId);
    };
  }

  /** Newest first; flushes this process's queue first so a read sees every answered request. */
  async list(ownerId: string, projectId: string, limit: number): Promise<RequestLogEntry[]> {
    await this.flush();
    const rows = await this.store.logs.list(ownerId, projectId, limit);
    return rows.map(({ seq: _seq, ...e }) => e);
  }

  /** Every kept entry of a project, oldest first, read through (the queue is written first). */
  async all(ownerId: string, projectId: string): Promise<(RequestLogEntry & { seq: number })[]> {
    await this.flush();
    return (await this.store.logs.list(ownerId, projectId, Number.MAX_SAFE_INTEGER)).reverse();
  }

  /** Empties a project's log, or only the entries of one mock session. */
  async clear(ownerId: string, projectId: string, session?: string): Promise<void> {
    await this.flush();
    if (session === undefined) {
      await this.store.logs.clear(ownerId, projectId);
      return;
    }
    const seqs = (await this.all(ownerId, projectId)).filter((e) => (e.session ?? '') === session).map((e) => e.seq);
    await this.store.logs.clear(ownerId, projectId, seqs);
  }

  /**
   * Writes the unwritten entries. The periodic flush leaves a flooded project's entries queued
   * until its flood interval (FLOOD_WRITE_MS) ends; `force` (reads, shutdown) writes everything.
   */
  flush(force = true): Promise<void> {
    if (this.flushing) return this.flushing.then(() => (this.queued && force ? this.flush() : undefined));
    if (this.queued === 0) return Promise.resolve();
    const keep = this.opts.keepPerProject;
    const now = (this.opts.now ?? Date.now)();
    const floodMs = FLOOD_WRITE_MS[this.opts.shared ? 'shared' : 'single'];
    const batch: { projectId: string; ring: Ring; k: number }[] = [];
    for (const [id, w] of this.windows) if (now - w.start >= floodMs) this.windows.delete(id);
    for (const [projectId, ring] of this.queue) {
      if (!this.admit(projectId, ring.length, now, force)) continue;
      // the ring leaves the queue here, so its places are not reused while they are written
      for (let k = 0; k < ring.length; k++) batch.push({ projectId, ring, k });
      this.touched.set(projectId, (this.touched.get(projectId) ?? 0) + ring.length);
      this.queued -= ring.length;
      this.queue.delete(projectId);
    }
    if (batch.length === 0) return Promise.resolve();
    this.flushing = (async () => {
      let written = 0;
      try {
        for (let i = 0; i < batch.length; ) {
          if (i > 0) await nextTurn();
          const rows: LogRow[] = [];
          let chars = 0;
          while (i < batch.length && rows.length < WRITE_CHUNK && chars < WRITE_BODY_CHARS) {
            const { projectId, ring, k } = batch[i++];
            const entry = ring.entry(k);
            chars += bodyChars(entry);
            rows.push({ projectId, entry });
          }
          await this.store.hot.appendLog(rows);
          written += rows.length;
        }
        for (const [projectId, n] of this.touched) {
          // trim a project once it may have grown past the limit by a tenth
          if (n >= Math.max(50, keep / 10)) {
            this.touched.delete(projectId);
            await this.store.logs.trim(projectId, keep);
          }
        }
      } catch (err) {
        this.dropped += batch.length - written;
        this.log.warn({ err, entries: batch.length - written }, 'request log batch not written');
      } finally {
        this.flushing = null;
      }
    })();
    return this.flushing;
  }

  /**
   * Whether a project's `n` queued entries are written now, counted in its flood interval (one is
   * started when it has none running): not when the interval has entries written already and these
   * would take it past `keepPerProject` — they wait for its end — unless `force`.
   */
  private admit(projectId: string, n: number, now: number, force: boolean): boolean {
    const w = this.windows.get(projectId);
    if (w === undefined) {
      this.windows.set(projectId, { start: now, written: n });
      return true;
    }
    if (!force && w.written + n > this.opts.keepPerProject) return false;
    w.written += n;
    return true;
  }

  private rememberLocal(id: string): void {
    this.localIds.add(id);
    if (this.localIds.size > 50_000) {
      const first = this.localIds.values().next().value;
      if (first !== undefined) this.localIds.delete(first);
    }
  }

  private polling = false;
  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      if (this.listeners.size === 0) {
        // Nobody listens: only keep the watermark current (one index lookup), so that a new
        // subscriber gets every entry committed after it subscribed. Setting the watermark at
        // subscription time instead would race with other processes' flushes.
        this.lastSeq = await this.store.logs.maxSeq();
        this.gaps.clear();
        return;
      }
      const now = Date.now();
      for (const [seq, since] of this.gaps) if (now - since > GAP_WAIT_MS) this.gaps.delete(seq);
      for (let i = 0; i < 10; i++) {
        const rows = await this.store.logs.since(this.lastSeq, 500, i === 0 ? [...this.gaps.keys()] : []);
        for (const r of rows) {
          if (r.seq > this.lastSeq) {
            for (let s = Math.max(this.lastSeq + 1, r.seq - MAX_GAPS); s < r.seq; s++) this.gaps.set(s, now);
            this.lastSeq = r.seq;
          } else if (!this.gaps.delete(r.seq)) {
            continue;
          }
          if (this.localIds.delete(r.entry.id)) continue;
          const subs = this.listeners.get(r.projectId);
          if (subs) for (const fn of subs) fn(r.entry);
        }
        while (this.gaps.size > MAX_GAPS) {
          const first = this.gaps.keys().next().value;
          if (first === undefined) break;
          this.gaps.delete(first);
        }
        if (rows.length < 500) break;
      }
    } catch (err) {
      this.log.debug({ err }, 'request log poll failed');
    } finally {
      this.polling = false;
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.pollTimer) clearInterval(this.pollTimer);
    await this.flush();
  }
}
