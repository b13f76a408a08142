/**
 * The request log's queue storage: per project a ring of reusable slots that copy each request's
 * text (see Slot), and `settle`, which spells an entry as it is stored and streamed.
 */
import type { RequestLogEntry } from '../domain/model.js';
import { seqId } from '../store/ids.js';
import type { CompiledStep } from './compile.js';
import { headersFromRaw } from './context.js';
import type { AnswerNote, OutHeaders } from './respond.js';

/**
 * A mock request as the hot path records it: a sequence number for the id, and node's raw header
 * lines. Both are spelled out (id; headers flattened and redacted) only when the entry is streamed
 * or written: under a flood most entries are overwritten before that.
 */
export type LogRecord = Omit<RequestLogEntry, 'headers' | 'id' | 'response'> & {
  seq: number;
  rawHeaders: readonly string[];
} & AnswerNote;
export type Pending = RequestLogEntry | LogRecord;

const REDACTED = ['authorization', 'proxy-authorization', 'cookie'];
/** The answer's body is logged up to this many characters (as the request's). */
export const SENT_BODY_CHARS = 64 * 1024;

/** A string's first `n` characters as a string of their own (a slice would keep the whole alive). */
const cut = (s: string, n: number): string => Buffer.from(s.slice(0, n), 'utf8').toString('utf8');

function sentAnswer(p: LogRecord): RequestLogEntry['response'] {
  const step = p.sentStep;
  if (p.sentHeaders === null && step === null) return undefined;
  const headers: Record<string, string> = {};
  if (p.sentHeaders)
    for (const [k, v] of Object.entries(p.sentHeaders)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
  const out: NonNullable<RequestLogEntry['response']> = { headers, body: p.sentBody };
  if (p.sentBody.length > SENT_BODY_CHARS) {
    out.body = cut(p.sentBody, SENT_BODY_CHARS);
    out.truncated = true;
  }
  if (step) {
    out.step = { index: step.index, of: step.of };
    if (p.sentDelay > 0) out.delayMs = p.sentDelay;
    if (step.fault) out.fault = step.fault;
  }
  return out;
}

/** The entry as it is stored and streamed: credentials in headers replaced by `[redacted]`. */
export function settle(p: LogRecord): RequestLogEntry {
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
  if (p.data) e.data = p.data;
  const response = sentAnswer(p);
  if (response) e.response = response;
  return e;
}

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

/** An entry's request text up to this many bytes is copied into its slot (see Slot): a body at
 * the log's 64 Ki characters and node's 32 KiB of header lines fit. */
const COPY_MAX = 256 * 1024;

/** UTF-8 bytes of `s`: an upper bound for a short one (no scan), exact for a longer one. */
const utf8Bytes = (s: string): number => (s.length * 3 <= 256 ? s.length * 3 : Buffer.byteLength(s, 'utf8'));

/**
 * A slot's buffer for `need` bytes: the one it has when that fits and is not far too big (so a
 * slot that once held a big entry gives the memory back), else a new one. Unpooled: a long-lived
 * slice of node's shared 8 KiB pool would keep its whole slab alive.
 */
function fitted(b: Buffer | null, need: number): Buffer {
  if (b !== null && b.length >= need && (b.length <= 1024 || b.length <= 4 * need)) return b;
  return Buffer.allocUnsafeSlow(need <= 256 ? 256 : Math.ceil(need / 1024) * 1024);
}

/**
 * One place in a project's ring. Slots are reused: a new entry overwrites the oldest one's fields
 * in place. The request's own strings (path, query, header lines, body) are copied into the
 * slot's buffer, so a queued entry keeps no object of its request alive: under a flood the ring
 * (1000 entries, more than the young generation holds between two scavenges) would otherwise keep
 * every recent request's strings alive, to be copied by each scavenge and promoted. A request
 * past COPY_MAX keeps references to its strings instead.
 */
export class Slot {
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
  data: RequestLogEntry['data'] = undefined;
  /** path, query, body, header lines: referenced (`refs`) or, when `refs` is null, copied (bytes + lengths) */
  private bytes: Buffer | null = null;
  /** byte lengths of the copied strings; only the first `count` are this entry's (the array is
   * overwritten, not emptied, so its backing store is reused) */
  private readonly lengths: number[] = [];
  private count = 0;
  private refs: Pick<LogRecord, 'path' | 'query' | 'body' | 'rawHeaders'> | null = null;
  /** the answer sent: headers and step by reference when they are shared compile-time objects
   * (fixed answers), else the headers copied as name/value pairs into `headerPairs` (the first
   * `headerCount`; -1: `sentHeaders` holds them); the body as keepBody says. A rendered answer's
   * headers object is new per request: kept by reference in a ring of old slots it would be
   * promoted, and old-space collections of that garbage held the loop 5–6 ms every ~2 s under S3 */
  private sentHeaders: Readonly<OutHeaders> | null = null;
  private readonly headerPairs: (string | number | string[])[] = [];
  private headerCount = -1;
  private sentStep: CompiledStep | null = null;
  private sentDelay = 0;
  private sentBody = '';
  private sentBytes: Buffer | null = null;
  /** bytes of the copied body, or -1 when `sentBody` holds it */
  private sentLength = -1;

  constructor(p: Pending) {
    this.set(p);
  }

  set(p: Pending): void {
    if (!('rawHeaders' in p)) {
      this.settled = p;
      this.refs = null;
      this.sentHeaders = null;
      this.headerCount = -1;
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
    this.data = p.data;
    this.refs = this.copy(p) ? null : p;
    this.keepHeaders(p.sentHeaders, p.sentShared);
    this.sentStep = p.sentStep;
    this.sentDelay = p.sentDelay;
    this.keepBody(p.sentBody, p.sentShared);
  }

  private keepHeaders(h: Readonly<OutHeaders> | null, shared: boolean): void {
    if (h === null || shared) {
      this.sentHeaders = h;
      this.headerCount = -1;
      return;
    }
    this.sentHeaders = null;
    const pairs = this.headerPairs;
    let n = 0;
    for (const k in h) {
      pairs[n++] = k;
      pairs[n++] = h[k];
    }
    this.headerCount = n;
  }

  private headers(): Readonly<OutHeaders> | null {
    if (this.headerCount < 0) return this.sentHeaders;
    const h: OutHeaders = {};
    for (let i = 0; i < this.headerCount; i += 2) h[this.headerPairs[i] as string] = this.headerPairs[i + 1];
    return h;
  }

  /**
   * The answer's body: a shared compile-time one by reference (it lives as long as its endpoint
   * anyway), any other copied as UTF-8 into the slot's own buffer, a huge one cut first (one
   * character past the cap, so `truncated` is still told). Kept by reference, a rendered body
   * lived as long as its slot and was promoted: under S7 (4 KiB lists) that was ~70 MB of
   * old-space garbage a second and a Mark-Compact every 0.9 s, with marking steps of 10-14 ms.
   */
  private keepBody(body: string, shared: boolean): void {
    if (shared) {
      this.sentLength = -1;
      this.sentBody = body;
      return;
    }
    const text = body.length > SENT_BODY_CHARS ? body.slice(0, SENT_BODY_CHARS + 1) : body;
    const b = fitted(this.sentBytes, utf8Bytes(text));
    this.sentBytes = b;
    this.sentLength = text.length === 0 ? 0 : b.write(text, 0, 'utf8');
    this.sentBody = '';
  }

  /** Copies the request's text into the slot's buffer when it fits: path, query and header lines
   * are latin1 as node's parser made them (one byte per character), the body UTF-8. */
  private copy(p: LogRecord): boolean {
    const raw = p.rawHeaders;
    let need = p.path.length + p.query.length + utf8Bytes(p.body);
    for (let i = 0; i < raw.length; i++) need += raw[i].length;
    if (need > COPY_MAX) return false;
    const b = fitted(this.bytes, need);
    this.bytes = b;
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
      data: this.data,
      sentHeaders: this.headers(),
      sentBody: this.sentLength >= 0 ? (this.sentBytes as Buffer).toString('utf8', 0, this.sentLength) : this.sentBody,
      sentShared: false,
      sentStep: this.sentStep,
      sentDelay: this.sentDelay,
    });
  }
}

/** The newest `cap` unwritten entries of one project; older ones are overwritten (coalesced). */
export class Ring {
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
