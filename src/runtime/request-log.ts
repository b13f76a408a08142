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
import { seqId } from '../store/ids.js';
import { headersFromRaw } from './context.js';
import type { LogStore } from './ports.js';

type Listener = (entry: RequestLogEntry) => void;

/**
 * A mock request as the hot path records it: a sequence number for the id, and node's raw header
 * lines. Both are spelled out (id; headers flattened and redacted) only when the entry is streamed
 * or written: under a flood most entries are overwritten before that.
 */
export type LogRecord = Omit<RequestLogEntry, 'headers' | 'id'> & { seq: number; rawHeaders: readonly string[] };
type Pending = RequestLogEntry | LogRecord;

const REDACTED = ['authorization', 'proxy-authorization', 'cookie'];

/** The entry as it is stored and streamed: credentials in headers replaced by `[redacted]`. */
function settle(p: LogRecord): RequestLogEntry {
  const headers = headersFromRaw(p.rawHeaders);
  for (const k of REDACTED) if (k in headers) headers[k] = '[redacted]';
  const e: RequestLogEntry = {
    id: seqId(p.seq),
    at: p.at,
    method: p.method,
    path: p.path,
    query: p.query,
    headers,
    body: p.body,
    endpointId: p.endpointId,
    ruleId: p.ruleId,
    statusCode: p.statusCode,
    durationMs: p.durationMs,
    actions: p.actions,
    rules: p.rules,
  };
  if (p.proxied) e.proxied = true;
  if (p.session) e.session = p.session;
  if (p.error) e.error = p.error;
  return e;
}

/**
 * A flooded project (more than `keepPerProject` requests since its last write, so older ones were
 * overwritten unwritten) is written at most this often: under a flood every write would be
 * trimmed again soon, so writing its newest entries every 250 ms only burns CPU and disk. Reads
 * through `list` still see every answered request (they flush first), and live subscribers get
 * each entry at once.
 */
export const FLOOD_WRITE_MS = 2000;

/** How long a gap in the log's sequence is polled for a late commit. */
const GAP_WAIT_MS = 5000;
/** At most this many gaps are remembered (the oldest are given up first). */
const MAX_GAPS = 2000;

/**
 * Writes a latin1 string (node's parser makes one byte per character of the URL and header lines)
 * at `o`; a plain loop beats the native call for the short strings of a request.
 */
function putLatin1(b: Buffer, s: string, o: number): number {
  const n = s.length;
  if (n > 64) return b.write(s, o, 'latin1');
  for (let i = 0; i < n; i++) b[o + i] = s.charCodeAt(i);
  return n;
}

/** An entry's request text up to this many bytes is copied into its slot (see Slot). */
const SLOT_BYTES = 1024;

/**
 * One place in a project's ring. Slots are reused: a new entry overwrites the oldest one's fields
 * in place. The request's own strings (path, query, header lines, a small body) are copied into
 * the slot's buffer, so a queued entry keeps no object of its request alive: under a flood the
 * ring (1000 entries, more than the young generation holds between two scavenges) would otherwise
 * keep every recent request's strings alive, to be copied by each scavenge and promoted.
 * A larger request keeps references to its strings instead.
 */
class Slot {
  /** an entry recorded in its final form (or settled early for live subscribers) */
  settled: RequestLogEntry | null = null;
  seq = 0;
  at = '';
  method = '';
  endpointId: string | null = null;
  ruleId: string | null = null;
  statusCode = 0;
  durationMs = 0.5;
  /** the evaluation's outcomes and traces, copied into the slot's own arrays (their elements are
   * shared objects built at compile time, or small ones of a failed action) */
  private readonly actions: RequestLogEntry['actions'] = [];
  private readonly rules: RequestLogEntry['rules'] = [];
  private actionCount = 0;
  private ruleCount = 0;
  proxied = false;
  session = '';
  error = '';
  /** path, query, body, header lines: referenced (`refs`) or, when `refs` is null, copied (bytes + lengths) */
  private bytes: Buffer | null = null;
  /** byte lengths of the copied strings; only the first `count` are this entry's (the array is
   * overwritten, not emptied, so its backing store is reused) */
  private readonly lengths: number[] = [];
  private count = 0;
  private refs: Pick<LogRecord, 'path' | 'query' | 'body' | 'rawHeaders'> | null = null;

  constructor(p: Pending) {
    this.set(p);
  }

  set(p: Pending): void {
    if (!('rawHeaders' in p)) {
      this.settled = p;
      this.refs = null;
      this.actionCount = 0;
      this.ruleCount = 0;
      return;
    }
    this.settled = null;
    this.seq = p.seq;
    this.at = p.at;
    this.method = p.method;
    this.endpointId = p.endpointId;
    this.ruleId = p.ruleId;
    this.statusCode = p.statusCode;
    this.durationMs = p.durationMs;
    this.actionCount = p.actions.length;
    for (let i = 0; i < this.actionCount; i++) this.actions[i] = p.actions[i];
    this.ruleCount = p.rules.length;
    for (let i = 0; i < this.ruleCount; i++) this.rules[i] = p.rules[i];
    this.proxied = p.proxied === true;
    this.session = p.session ?? '';
    this.error = p.error ?? '';
    this.refs = this.copy(p) ? null : p;
  }

  /** Copies the request's text into the slot's buffer when it fits: path, query and header lines
   * are latin1 as node's parser made them (one byte per character), the body UTF-8. */
  private copy(p: LogRecord): boolean {
    const raw = p.rawHeaders;
    let need = p.path.length + p.query.length + 3 * p.body.length;
    for (let i = 0; i < raw.length; i++) need += raw[i].length;
    if (need > SLOT_BYTES) return false;
    let b = this.bytes;
    if (b === null || b.length < need) {
      b = Buffer.allocUnsafe(need <= 256 ? 256 : SLOT_BYTES);
      this.bytes = b;
    }
    const lens = this.lengths;
    let o = 0;
    let n = putLatin1(b, p.path, o);
    lens[0] = n;
    o += n;
    n = putLatin1(b, p.query, o);
    lens[1] = n;
    o += n;
    n = p.body.length === 0 ? 0 : b.write(p.body, o, 'utf8');
    lens[2] = n;
    o += n;
    for (let i = 0; i < raw.length; i++) {
      n = putLatin1(b, raw[i], o);
      lens[3 + i] = n;
      o += n;
    }
    this.count = 3 + raw.length;
    return true;
  }

  entry(): RequestLogEntry {
    if (this.settled) return this.settled;
    let text = this.refs;
    if (text === null) {
      const b = this.bytes as Buffer;
      const lens = this.lengths;
      let o = 0;
      const read = (i: number, enc: 'latin1' | 'utf8') => {
        const start = o;
        o += lens[i];
        return b.toString(enc, start, o);
      };
      const path = read(0, 'latin1');
      const query = read(1, 'latin1');
      const body = read(2, 'utf8');
      const rawHeaders: string[] = [];
      for (let i = 3; i < this.count; i++) rawHeaders.push(read(i, 'latin1'));
      text = { path, query, body, rawHeaders };
    }
    return settle({
      seq: this.seq,
      at: this.at,
      method: this.method,
      path: text.path,
      query: text.query,
      rawHeaders: text.rawHeaders,
      body: text.body,
      endpointId: this.endpointId,
      ruleId: this.ruleId,
      statusCode: this.statusCode,
      durationMs: this.durationMs,
      actions: this.actions.slice(0, this.actionCount),
      rules: this.rules.slice(0, this.ruleCount),
      proxied: this.proxied,
      session: this.session,
      error: this.error,
    });
  }
}

/** The newest `cap` unwritten entries of one project; older ones are overwritten (coalesced). */
class Ring {
  items: Slot[] = [];
  /** when full: the index of the oldest entry */
  private next = 0;
  /** entries overwritten since the ring was made */
  overwritten = 0;

  constructor(private readonly cap: number) {}

  push(e: Pending): void {
    if (this.items.length < this.cap) {
      this.items.push(new Slot(e));
      return;
    }
    this.items[this.next].set(e);
    this.next = this.next + 1 === this.cap ? 0 : this.next + 1;
    this.overwritten++;
  }

  /**
   * Drops the oldest entry (past the global bound). A ring that has wrapped is put back in order
   * first, so the next push appends after the newest entry; either way exactly one entry goes.
   */
  dropOldest(): void {
    if (this.next !== 0) {
      this.items = this.ordered();
      this.next = 0;
    }
    this.items.shift();
  }

  /** Oldest first. */
  ordered(): Slot[] {
    return this.next === 0 ? this.items : [...this.items.slice(this.next), ...this.items.slice(0, this.next)];
  }
}

export interface RequestLogOptions {
  keepPerProject: number;
  flushMs?: number;
  maxQueue?: number;
  /** poll other processes' entries (PostgreSQL) */
  shared?: boolean;
}

export class RequestLog {
  /** unwritten entries by project */
  private queue = new Map<string, Ring>();
  /** when a flooded project was last written */
  private readonly floodWritten = new Map<string, number>();
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
    const before = ring.items.length;
    ring.push(entry);
    if (ring.items.length === before) {
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

  /**
   * Writes the unwritten entries. The periodic flush leaves a flooded project's entries queued
   * until FLOOD_WRITE_MS after its last write; `force` (reads, shutdown) writes everything.
   */
  flush(force = true): Promise<void> {
    if (this.flushing) return this.flushing.then(() => (this.queued && force ? this.flush() : undefined));
    if (this.queued === 0) return Promise.resolve();
    const keep = this.opts.keepPerProject;
    const now = Date.now();
    const batch: { projectId: string; entry: RequestLogEntry }[] = [];
    for (const [projectId, ring] of this.queue) {
      if (ring.overwritten > 0) {
        if (!force && now - (this.floodWritten.get(projectId) ?? 0) < FLOOD_WRITE_MS) continue;
        this.floodWritten.set(projectId, now);
      } else {
        this.floodWritten.delete(projectId);
      }
      for (const slot of ring.ordered()) batch.push({ projectId, entry: slot.entry() });
      this.touched.set(projectId, (this.touched.get(projectId) ?? 0) + ring.items.length);
      this.queued -= ring.items.length;
      this.queue.delete(projectId);
    }
    if (batch.length === 0) return Promise.resolve();
    this.flushing = (async () => {
      try {
        await this.store.hot.appendLog(batch);
        for (const [projectId, n] of this.touched) {
          // trim a project once it may have grown past the limit by a tenth
          if (n >= Math.max(50, keep / 10)) {
            this.touched.delete(projectId);
            await this.store.logs.trim(projectId, keep);
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
