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
import type { Store } from '../store/store.js';

type Listener = (entry: RequestLogEntry) => void;

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
}

export class RequestLog {
  /** unwritten entries by project, oldest first */
  private queue = new Map<string, RequestLogEntry[]>();
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
    private readonly store: Store,
    private readonly log: Logger,
    private readonly opts: RequestLogOptions,
  ) {}

  async start(): Promise<void> {
    const every = this.opts.flushMs ?? 250;
    this.timer = setInterval(() => void this.flush(), every);
    this.timer.unref();
    if (this.opts.shared) {
      this.lastSeq = await this.store.maxLogSeq();
      this.pollTimer = setInterval(() => void this.poll(), 250);
      this.pollTimer.unref();
    }
  }

  record(projectId: string, entry: RequestLogEntry): void {
    let list = this.queue.get(projectId);
    if (!list) {
      list = [];
      this.queue.set(projectId, list);
    }
    list.push(entry);
    this.queued++;
    const keep = this.opts.keepPerProject;
    if (list.length >= 2 * keep) {
      // the older half could never be among the newest `keep`: skip it now
      list.splice(0, list.length - keep);
      this.coalesced += keep;
      this.queued -= keep;
    }
    if (this.queued > (this.opts.maxQueue ?? 50_000)) {
      list.shift();
      this.queued--;
      this.dropped++;
    }
    const subs = this.listeners.get(projectId);
    if (subs) {
      if (this.opts.shared) this.rememberLocal(entry.id);
      for (const fn of subs) fn(entry);
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
    const rows = await this.store.listLog(ownerId, projectId, limit);
    return rows.map(({ seq: _seq, ...e }) => e);
  }

  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => (this.queued ? this.flush() : undefined));
    if (this.queued === 0) return Promise.resolve();
    const keep = this.opts.keepPerProject;
    const batch: { projectId: string; entry: RequestLogEntry }[] = [];
    for (const [projectId, list] of this.queue) {
      const from = Math.max(0, list.length - keep);
      this.coalesced += from;
      for (let i = from; i < list.length; i++) batch.push({ projectId, entry: list[i] });
      this.touched.set(projectId, (this.touched.get(projectId) ?? 0) + list.length - from);
    }
    this.queue = new Map();
    this.queued = 0;
    this.flushing = (async () => {
      try {
        await this.store.appendLog(batch);
        for (const [projectId, n] of this.touched) {
          // trim a project once it may have grown past the limit by a tenth
          if (n >= Math.max(50, keep / 10)) {
            this.touched.delete(projectId);
            await this.store.trimLog(projectId, keep);
          }
        }
      } catch (err) {
        this.dropped += batch.length;
        this.log.warn({ err, entries: batch.length }, 'request log batch not written');
      } finally {
        this.flushing = null;
      }
    })();
    return this.flushing;
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
        this.lastSeq = await this.store.maxLogSeq();
        this.gaps.clear();
        return;
      }
      const now = Date.now();
      for (const [seq, since] of this.gaps) if (now - since > GAP_WAIT_MS) this.gaps.delete(seq);
      for (let i = 0; i < 10; i++) {
        const rows = await this.store.logSince(this.lastSeq, 500, i === 0 ? [...this.gaps.keys()] : []);
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
