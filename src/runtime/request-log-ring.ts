/**
 * The request log's queue storage: per project a ring that copies each request's text into storage
 * it reuses (see Ring). Entries are spelled by `settle` (request-log-entry.ts) when they are read.
 */
import type { RequestLogEntry } from '../domain/model.js';
import type { CompiledStep } from './compile.js';
import { fitted, putBytes, putLength, putString, Slabs, utf8Bytes } from './request-log-bytes.js';
import { LOGGED_BODY_CHARS, type LogRecord, type Pending, SENT_BODY_CHARS, settle } from './request-log-entry.js';
import type { OutHeaders } from './respond.js';

export { type LogRecord, type Pending, SENT_BODY_CHARS, settle } from './request-log-entry.js';

/** An entry's request text up to this many bytes is copied (see Ring): a body at
 * the log's 64 Ki characters and node's 32 KiB of header lines fit. */
const COPY_MAX = 256 * 1024;

/** Bytes of a place's own region of the ring's arena; a bigger entry's text gets a buffer of its own. */
const REGION = 256;
/** A length prefix that marks an answer body kept by reference (a compile-time string). */
const SHARED = 0xffffffff;
type Text = Pick<LogRecord, 'path' | 'query' | 'body' | 'rawHeaders' | 'sentBody'> & { session: string };

/**
 * The newest `cap` unwritten entries of one project; older ones are overwritten in place
 * (coalesced). Stored as columns — one array per field, indexed by place — and an arena with a
 * 256-byte region per place: a request's path, query, body, mock session, header lines and (unless
 * it is a shared compile-time string) answer body are copied there, each behind its length. So a queued
 * entry keeps no object of its request alive (under a flood a ring of references would keep every
 * recent request's strings alive, to be copied by each scavenge and promoted), and recording
 * touches memory that the previous entries just warmed: consecutive entries sit side by side in
 * every column. An object per place (with its own buffer and arrays) cost a cache miss for each
 * object it reached, ~0.5 µs of a request under S1 (perf annotate: the loads of the slot's buffer
 * and lengths array). Text past a region gets a buffer of its own (up to COPY_MAX), past that its
 * strings are kept by reference. The columns grow with the entries, doubling up to `cap`.
 */
export class Ring {
  /** entries overwritten since the ring was made */
  overwritten = 0;
  /** entries held */
  length = 0;
  /** the place of the oldest entry */
  private start = 0;
  private size = 0;
  private seqs = new Float64Array(0);
  private durations = new Float64Array(0);
  private delays = new Float64Array(0);
  /** events a streamed answer sent (0: not a stream) */
  private eventCounts = new Float64Array(0);
  private statuses = new Int32Array(0);
  /** bit 1 proxied, bit 4 the text is in `big` */
  private flags = new Uint8Array(0);
  /** string count of the copied text; -1: `refs` holds it */
  private strings = new Int32Array(0);
  private actionCounts = new Int32Array(0);
  private ruleCounts = new Int32Array(0);
  /** name/value count in `pairs`; -1: `sentHeaders` holds the headers (shared or none) */
  private headerCounts = new Int32Array(0);
  private arena = Buffer.alloc(0);
  private settled: (RequestLogEntry | null)[] = [];
  private ats: string[] = [];
  private methods: string[] = [];
  private endpointIds: (string | null)[] = [];
  private ruleIds: (string | null)[] = [];
  private errors: string[] = [];
  private warnings: string[] = [];
  private nearests: RequestLogEntry['nearest'][] = [];
  private eventTimeses: (number[] | undefined)[] = [];
  private datas: RequestLogEntry['data'][] = [];
  private violationses: RequestLogEntry['violations'][] = [];
  /** a WebSocket entry's kind, direction, event and socket (docs/websocket.md) */
  private sockets: (Pick<RequestLogEntry, 'kind' | 'direction' | 'event' | 'socketId'> | undefined)[] = [];
  private steps: (CompiledStep | null)[] = [];
  private sentHeaders: (Readonly<OutHeaders> | null)[] = [];
  private sharedBodies: string[] = [];
  /** per place, made on first use and reused: the text past a region, the evaluation's outcomes
   * and traces (their elements are shared compile-time objects or small ones of a failed action),
   * and the answer's headers as name/value pairs (a rendered answer's headers object is new per
   * request: kept by reference it would be promoted, and old-space collections of that garbage
   * held the loop 5–6 ms every ~2 s under S3) */
  private big: (Buffer | null)[] = [];
  private readonly slabs = new Slabs();
  private refs: (Text | null)[] = [];
  private actionLists: RequestLogEntry['actions'][] = [];
  private ruleLists: RequestLogEntry['rules'][] = [];
  private pairs: (string | number | string[])[][] = [];

  constructor(private readonly cap: number) {}

  push(p: Pending): void {
    let i: number;
    if (this.length < this.cap) {
      if (this.length === this.size) this.grow();
      i = this.start + this.length;
      if (i >= this.size) i -= this.size;
      this.length++;
    } else {
      i = this.start;
      this.start = i + 1 === this.size ? 0 : i + 1;
      this.overwritten++;
    }
    if (!('rawHeaders' in p)) {
      this.settled[i] = p;
      this.refs[i] = null;
      return;
    }
    this.settled[i] = null;
    this.seqs[i] = p.seq;
    this.ats[i] = p.at;
    this.methods[i] = p.method;
    this.endpointIds[i] = p.endpointId;
    this.ruleIds[i] = p.ruleId;
    this.statuses[i] = p.statusCode;
    this.durations[i] = p.durationMs;
    this.delays[i] = p.sentDelay;
    this.eventCounts[i] = p.sentEvents ?? 0;
    this.steps[i] = p.sentStep;
    this.errors[i] = p.error ?? '';
    this.warnings[i] = p.warning ?? '';
    this.nearests[i] = p.nearest;
    this.eventTimeses[i] = p.sentEventTimes;
    this.datas[i] = p.data;
    this.violationses[i] = p.violations;
    this.sockets[i] = p.kind
      ? { kind: p.kind, direction: p.direction, event: p.event, socketId: p.socketId }
      : undefined;
    this.flags[i] = p.proxied === true ? 1 : 0;
    const na = p.actions.length;
    this.actionCounts[i] = na;
    if (na > 0) {
      const list = listAt(this.actionLists, i);
      for (let k = 0; k < na; k++) list[k] = p.actions[k];
    }
    const nr = p.rules.length;
    this.ruleCounts[i] = nr;
    if (nr > 0) {
      const list = listAt(this.ruleLists, i);
      for (let k = 0; k < nr; k++) list[k] = p.rules[k];
    }
    this.keepHeaders(i, p.sentHeaders, p.sentShared);
    this.keepText(i, p);
  }

  /**
   * Drops the oldest entry (past the global bound); the next push appends after the newest
   * entry, so exactly one entry goes either way.
   */
  dropOldest(): void {
    if (this.length === 0) return;
    this.settled[this.start] = null;
    this.refs[this.start] = null;
    this.start = this.start + 1 === this.size ? 0 : this.start + 1;
    this.length--;
  }

  /** The `k`-th entry, oldest first (0 ≤ k < length), spelled as it is stored and streamed. */
  entry(k: number): RequestLogEntry {
    let i = this.start + k;
    if (i >= this.size) i -= this.size;
    const done = this.settled[i];
    if (done) return done;
    const text = this.text(i);
    const na = this.actionCounts[i];
    const nr = this.ruleCounts[i];
    const flags = this.flags[i];
    return settle({
      seq: this.seqs[i],
      at: this.ats[i],
      method: this.methods[i],
      path: text.path,
      query: text.query,
      rawHeaders: text.rawHeaders,
      body: text.body,
      endpointId: this.endpointIds[i],
      ruleId: this.ruleIds[i],
      statusCode: this.statuses[i],
      durationMs: this.durations[i],
      actions: na === 0 ? [] : this.actionLists[i].slice(0, na),
      rules: nr === 0 ? [] : this.ruleLists[i].slice(0, nr),
      proxied: (flags & 1) !== 0,
      session: text.session,
      error: this.errors[i],
      warning: this.warnings[i],
      nearest: this.nearests[i],
      data: this.datas[i],
      violations: this.violationses[i],
      ...this.sockets[i],
      sentHeaders: this.headers(i),
      sentBody: text.sentBody,
      sentShared: false,
      sentStep: this.steps[i],
      sentDelay: this.delays[i],
      sentEvents: this.eventCounts[i],
      sentEventTimes: this.eventTimeses[i],
    });
  }

  /** Every entry, oldest first. */
  entries(): RequestLogEntry[] {
    const out: RequestLogEntry[] = [];
    for (let k = 0; k < this.length; k++) out.push(this.entry(k));
    return out;
  }

  /** Room for twice the entries (up to `cap`), the entries moved to places 0… in order. */
  private grow(): void {
    const size = Math.min(this.cap, Math.max(8, this.size * 2));
    const order = (i: number) => (this.start + i) % this.size;
    const n = this.length;
    const typed = <A extends Float64Array | Int32Array | Uint8Array>(old: A, make: (n: number) => A): A => {
      const next = make(size);
      for (let k = 0; k < n; k++) next[k] = old[order(k)];
      return next;
    };
    const column = <T>(old: T[]): T[] => {
      const next = new Array<T>(size);
      for (let k = 0; k < n; k++) next[k] = old[order(k)];
      return next;
    };
    this.seqs = typed(this.seqs, (m) => new Float64Array(m));
    this.durations = typed(this.durations, (m) => new Float64Array(m));
    this.delays = typed(this.delays, (m) => new Float64Array(m));
    this.eventCounts = typed(this.eventCounts, (m) => new Float64Array(m));
    this.statuses = typed(this.statuses, (m) => new Int32Array(m));
    this.flags = typed(this.flags, (m) => new Uint8Array(m));
    this.strings = typed(this.strings, (m) => new Int32Array(m));
    this.actionCounts = typed(this.actionCounts, (m) => new Int32Array(m));
    this.ruleCounts = typed(this.ruleCounts, (m) => new Int32Array(m));
    this.headerCounts = typed(this.headerCounts, (m) => new Int32Array(m));
    const arena = Buffer.allocUnsafeSlow(size * REGION);
    for (let k = 0; k < n; k++) this.arena.copy(arena, k * REGION, order(k) * REGION, (order(k) + 1) * REGION);
    this.arena = arena;
    this.settled = column(this.settled);
    this.ats = column(this.ats);
    this.methods = column(this.methods);
    this.endpointIds = column(this.endpointIds);
    this.ruleIds = column(this.ruleIds);
    this.errors = column(this.errors);
    this.warnings = column(this.warnings);
    this.nearests = column(this.nearests);
    this.eventTimeses = column(this.eventTimeses);
    this.datas = column(this.datas);
    this.violationses = column(this.violationses);
    this.sockets = column(this.sockets);
    this.steps = column(this.steps);
    this.sentHeaders = column(this.sentHeaders);
    this.sharedBodies = column(this.sharedBodies);
    this.big = column(this.big);
    this.refs = column(this.refs);
    this.actionLists = column(this.actionLists);
    this.ruleLists = column(this.ruleLists);
    this.pairs = column(this.pairs);
    this.size = size;
    this.start = 0;
  }

  private keepHeaders(i: number, h: Readonly<OutHeaders> | null, shared: boolean): void {
    if (h === null || shared) {
      this.sentHeaders[i] = h;
      this.headerCounts[i] = -1;
      return;
    }
    this.sentHeaders[i] = null;
    const pairs = listAt(this.pairs, i);
    let n = 0;
    for (const k in h) {
      pairs[n++] = k;
      pairs[n++] = h[k];
    }
    this.headerCounts[i] = n;
  }

  private headers(i: number): Readonly<OutHeaders> | null {
    const n = this.headerCounts[i];
    if (n < 0) return this.sentHeaders[i];
    const pairs = this.pairs[i];
    const h: OutHeaders = {};
    for (let k = 0; k < n; k += 2) h[pairs[k] as string] = pairs[k + 1];
    return h;
  }

  /**
   * Copies the request's text, its mock session and the answer's body: path, query and header
   * lines are latin1 as node's parser made them (one byte per character), the bodies and the session
   * UTF-8 (the answer's cut to one character past SENT_BODY_CHARS, so `truncated` is still told),
   * each behind its length. A shared answer body (a compile-time string, as long-lived as its
   * endpoint) is kept by reference.
   */
  private keepText(i: number, p: LogRecord): void {
    const raw = p.rawHeaders;
    const session = p.session ?? '';
    const shared = p.sentShared;
    const sent = shared || p.sentBody.length <= SENT_BODY_CHARS ? p.sentBody : p.sentBody.slice(0, SENT_BODY_CHARS + 1);
    // the body's bytes as received, when they are the logged body whole (no more bytes than it may hold characters)
    const bytes = p.rawBody != null && p.rawBody.length <= LOGGED_BODY_CHARS ? p.rawBody : null;
    let need = 20 + 4 * raw.length + p.path.length + p.query.length + utf8Bytes(session);
    need += bytes !== null ? bytes.length : utf8Bytes(p.body);
    if (!shared) need += utf8Bytes(sent);
    for (let k = 0; k < raw.length; k++) need += raw[k].length;
    if (need > COPY_MAX) {
      this.strings[i] = -1;
      this.refs[i] = { path: p.path, query: p.query, body: p.body, rawHeaders: raw, sentBody: sent, session };
      return;
    }
    this.refs[i] = null;
    let b: Buffer;
    let o: number;
    if (need <= REGION) {
      b = this.arena;
      o = i * REGION;
    } else {
      b = fitted(this.big[i] ?? null, need, this.slabs);
      this.big[i] = b;
      this.flags[i] |= 4;
      o = 0;
    }
    o = putString(b, p.path, o, false);
    o = putString(b, p.query, o, false);
    o = bytes !== null ? putBytes(b, bytes, o) : putString(b, p.body, o, true);
    o = putString(b, session, o, true);
    // a place keeps no answer body of an earlier entry (an endpoint deleted since lives on otherwise)
    this.sharedBodies[i] = shared ? sent : '';
    if (shared) o = putLength(b, SHARED, o);
    else o = putString(b, sent, o, true);
    for (let k = 0; k < raw.length; k++) o = putString(b, raw[k], o, false);
    this.strings[i] = 5 + raw.length;
  }

  private text(i: number): Text {
    const n = this.strings[i];
    if (n < 0) return this.refs[i] as Text;
    const inArena = (this.flags[i] & 4) === 0;
    const b = inArena ? this.arena : (this.big[i] as Buffer);
    let o = inArena ? i * REGION : 0;
    const read = (utf8: boolean): string => {
      const len = b.readUInt32LE(o);
      o += 4;
      if (len === SHARED) return this.sharedBodies[i];
      const s = b.toString(utf8 ? 'utf8' : 'latin1', o, o + len);
      o += len;
      return s;
    };
    const path = read(false);
    const query = read(false);
    const body = read(true);
    const session = read(true);
    const sentBody = read(true);
    const rawHeaders: string[] = [];
    for (let k = 5; k < n; k++) rawHeaders.push(read(false));
    return { path, query, body, sentBody, rawHeaders, session };
  }
}

/** A place's own list in a column of lists, made on first use. */
function listAt<T>(lists: T[][], i: number): T[] {
  let list = lists[i];
  if (list === undefined) {
    list = [];
    lists[i] = list;
  }
  return list;
}
