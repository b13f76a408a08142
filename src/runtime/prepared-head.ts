/**
 * An answer's head spelled once and sent as it is. node's `writeHead` validates and spells every
 * header of every answer — two regular-expression tests, a lower-casing and a string join per
 * header, ~6,900 instructions of a fixed answer's ~31,000 under S1 (callgrind, its `_storeHeader`)
 * — where a mock's fixed answer has the same status line and headers every time, and a rendered
 * one the same but for its length. So those heads are validated and spelled when first needed
 * (`prepareHead`), and `sendPrepared` hands node the finished head with the Date and Connection
 * lines node itself would add and the body as its tail — queued, and written with the turn's other
 * such answers at its end, each as one chunk.
 *
 * It does so through the response's head fields as node's own `writeHead` leaves them (`_header`,
 * `_headerSent`), only for the plain case — an HTTP/1.1 keep-alive answer of 2xx–5xx (not 204 or
 * 304) to a request without `Expect`, on a socket that may stay open — and checks each of the
 * fields that case reads first: anything else (or a node whose fields differ) takes `writeHead`.
 * prepared-head.test.ts compares both ways byte for byte on the node that runs the tests.
 */
import { OutgoingMessage, type ServerResponse, STATUS_CODES, validateHeaderName, validateHeaderValue } from 'node:http';
import type { OutHeaders } from './respond.js';

type HeaderValue = string | number | readonly string[];

/** A head spelled around its `content-length` value: `before` + length + `after` (and `whole`,
 * the three joined, when the length is fixed). */
export interface PreparedHead {
  readonly before: string;
  readonly after: string;
  readonly whole: string | null;
}

/**
 * Header names node's `writeHead` acts on beyond spelling them (they set how the connection ends,
 * the body's framing or node's own Date line), and `content-disposition`, whose value node
 * re-encodes: a head with one of them is left to node.
 */
const NODE_ACTS_ON = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'date',
  'expect',
  'trailer',
  'content-disposition',
  'cookie',
]);

/**
 * The head of an answer with `status` and `headers` (in their order, as node spells them), split at
 * its content-length value, or null when node must write it: a 1xx, 204 or 304 status (node sends
 * those without a body), a header node acts on (NODE_ACTS_ON), a name or value node refuses, or no
 * single `content-length`. `length` fills in `whole`.
 */
export function prepareHead(
  status: number,
  headers: Readonly<Record<string, HeaderValue>>,
  length: number | null,
): PreparedHead | null {
  if (!Number.isInteger(status) || status < 200 || status > 999 || status === 204 || status === 304) return null;
  let before = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'unknown'}\r\n`;
  let after: string | null = null;
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (NODE_ACTS_ON.has(lower)) return null;
    if (lower === 'content-length') {
      if (after !== null) return null;
      before += `${name}: `;
      after = '\r\n';
      continue;
    }
    const value = headers[name];
    let lines = '';
    try {
      validateHeaderName(name);
      // an array is one line per value, as node spells it (`cookie`, which it joins, is left to node)
      for (const v of typeof value === 'object' ? value : [value]) {
        validateHeaderValue(name, String(v));
        lines += `${name}: ${v}\r\n`;
      }
    } catch {
      return null;
    }
    if (after === null) before += lines;
    else after += lines;
  }
  if (after === null) return null;
  return { before, after, whole: length === null ? null : before + length + after };
}

/** The fields of node's response (`_http_outgoing`, `_http_server`) that its `writeHead` reads
 * and writes in the plain case. */
interface NodeResponse {
  _header: string | null;
  /** false for an answer to HEAD (node then drops the body `end` is given) */
  _hasBody: boolean;
  _headerSent: boolean;
  sendDate: boolean;
  shouldKeepAlive: boolean;
  maxRequestsOnConnectionReached: boolean;
  _removedConnection: boolean;
  _expect_continue: boolean;
  chunkedEncoding: boolean;
  strictContentLength: boolean;
  statusCode: number;
  statusMessage: string | undefined;
  _keepAliveTimeout: number;
  _defaultKeepAlive: boolean;
  _maxRequestsPerSocket: number | null | undefined;
}

/** Where node keeps headers set one by one (`setHeader`), which `writeHead` adds to its own: an
 * answer with any takes `writeHead`, and without the key (a node that keeps them elsewhere) all do. */
const OUT_HEADERS = Object.getOwnPropertySymbols(new OutgoingMessage()).find((s) => s.description === 'kOutHeaders');

/** node's Date line for the current second (as its `utcDate`: made once a second). */
let dateLine = '';
function date(): string {
  if (dateLine === '') {
    const now = new Date();
    dateLine = `Date: ${now.toUTCString()}\r\n`;
    setTimeout(() => {
      dateLine = '';
      // the whole answers made with it go too (an idle server keeps none)
      wholes.clear();
    }, 1000 - now.getMilliseconds()).unref();
  }
  return dateLine;
}

/** node's Connection lines for a keep-alive answer, by the server's keep-alive settings. */
let keepAliveMs = -1;
let maxRequests = -1;
let connectionLines = '';
function connection(r: NodeResponse): string {
  if (!r._keepAliveTimeout || !r._defaultKeepAlive) return 'Connection: keep-alive\r\n';
  const max = ~~(r._maxRequestsPerSocket ?? 0);
  if (r._keepAliveTimeout !== keepAliveMs || max !== maxRequests) {
    keepAliveMs = r._keepAliveTimeout;
    maxRequests = max;
    const limit = max > 0 ? `, max=${max}` : '';
    connectionLines = `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(keepAliveMs / 1000)}${limit}\r\n`;
  }
  return connectionLines;
}

/** Whether `r` is in the plain case: node's `writeHead` would send a keep-alive head of ours. */
function plain(r: NodeResponse & Record<symbol, unknown>): boolean {
  return (
    OUT_HEADERS !== undefined &&
    r[OUT_HEADERS] === null &&
    r._header === null &&
    r._headerSent === false &&
    r.sendDate === true &&
    r.shouldKeepAlive === true &&
    r.maxRequestsOnConnectionReached === false &&
    r._removedConnection === false &&
    r._expect_continue === false &&
    r.chunkedEncoding === false &&
    r.strictContentLength === false &&
    r.statusMessage === undefined
  );
}

/** The answers queued in this turn, in order (two sets: one fills while the other is written). */
class Batch {
  res: ServerResponse[] = [];
  status: number[] = [];
  head: string[] = [];
  body: string[] = [];
  /** whether the body is ASCII (its UTF-8 bytes as many as its characters) */
  ascii: boolean[] = [];
  /** whether head and body are compile-time strings (`sendPrepared`'s `fixed`) */
  fixed: boolean[] = [];
  headers: Readonly<OutHeaders>[] = [];
  n = 0;
}
let filling = new Batch();
let spare = new Batch();

/**
 * Writes the answers queued in this turn, in the order they were queued: from the prepared head
 * while the response is still in the plain case, else through `writeHead` with their headers.
 */
function flush(): void {
  const b = filling;
  filling = spare;
  spare = b;
  for (let i = 0; i < b.n; i++) {
    const res = b.res[i];
    const r = res as unknown as NodeResponse & Record<symbol, unknown>;
    try {
      if (plain(r)) {
        r.statusCode = b.status[i];
        r.statusMessage = STATUS_CODES[b.status[i]] ?? 'unknown';
        const d = date();
        const c = connection(r);
        if (r._hasBody === true && b.body[i].length <= ONE_CHUNK_CHARS) {
          // the body as the head's tail (`whole`): `end()` writes the answer as one chunk, where
          // end(body) queues the body and an empty chunk, which the corked socket writes with a writev
          r._header = b.fixed[i] ? fixedWhole(b.head[i], b.body[i], b.ascii[i], d, c) : whole(b, i, d, c);
          res.end();
        } else {
          r._header = `${b.head[i]}${d}${c}\r\n`;
          res.end(b.body[i]);
        }
      } else if (!res.headersSent && !res.destroyed) {
        res.writeHead(b.status[i], b.headers[i] as OutHeaders);
        res.end(b.body[i]);
      }
    } catch {
      res.destroy();
    }
    b.res[i] = null as unknown as ServerResponse;
    b.head[i] = '';
    b.body[i] = '';
    b.headers[i] = EMPTY;
  }
  b.n = 0;
}
const EMPTY: Readonly<OutHeaders> = Object.freeze({});

/**
 * The longest body sent as its head's tail: a longer one is copied once more by the join (and
 * spelled anew when beyond ASCII), which costs more than the writev it saves, and a fixed one would
 * be kept twice for a second (`wholes`).
 */
const ONE_CHUNK_CHARS = 64 * 1024;

/** A body in latin1 as its bytes: an ASCII one is its own spelling; another is spelled as its UTF-8 bytes. */
const latin1 = (body: string, ascii: boolean) => (ascii ? body : Buffer.from(body, 'utf8').toString('latin1'));

/** Answer `i` of `b` whole: its head with the Date and Connection lines, then its body in latin1. */
const whole = (b: Batch, i: number, d: string, c: string) => `${b.head[i]}${d}${c}\r\n${latin1(b.body[i], b.ascii[i])}`;

/**
 * The whole answers of fixed heads and bodies made this second, by head: node writes a string it
 * has flattened (the first write of a joined string flattens it in place) without copying its pieces
 * again, ~2,200 instructions of an S1 answer (callgrind, `String::SlowFlatten`). Emptied when the
 * Date line changes (by `date`'s timer, so an idle server keeps none) and past FIXED_WHOLES heads,
 * so it keeps at most that many answers, of up to ONE_CHUNK_CHARS each, for a second.
 */
const wholes = new Map<string, { body: string; connection: string; whole: string }>();
const FIXED_WHOLES = 64;

/** Whole answers kept now (tests). */
export const fixedWholesKept = () => wholes.size;

function fixedWhole(head: string, body: string, ascii: boolean, d: string, c: string): string {
  const known = wholes.get(head);
  if (known !== undefined && known.body === body && known.connection === c) return known.whole;
  const made = `${head}${d}${c}\r\n${latin1(body, ascii)}`;
  if (wholes.size >= FIXED_WHOLES) wholes.clear();
  wholes.set(head, { body, connection: c, whole: made });
  return made;
}

/**
 * Answers with `head` (a prepared head, its length filled in) and `body` as `writeHead(status,
 * headers)` and `end(body)` would, when the answer is the plain case: queued, and written with
 * every other answer of this turn at its end (a `setImmediate`), in order; false, and nothing
 * queued, otherwise. Written together, a turn's answers reach the clients in one burst, and their
 * next requests arrive together for the next turn: under wrk's 50 connections an S1 request cost
 * ~45 % less CPU than answered one by one as it was parsed (the sequence scenario, whose answers
 * wait for the hit counter's group commit at the end of the turn, already cost ~30 % less than
 * the fixed answer). Should the response leave the plain case before the end of the turn, `headers`
 * go through `writeHead` then. `bytes` is the body's UTF-8 length (as the head states it); `fixed`
 * says head and body are compile-time strings (a fixed default or step), whose whole answer is
 * kept for the second its Date line lasts (`fixedWhole`).
 */
export function sendPrepared(
  res: ServerResponse,
  status: number,
  head: string,
  body: string,
  bytes: number,
  headers: Readonly<OutHeaders>,
  fixed = false,
): boolean {
  if (!plain(res as unknown as NodeResponse & Record<symbol, unknown>)) return false;
  const b = filling;
  if (b.n === 0) setImmediate(flush);
  const i = b.n++;
  b.res[i] = res;
  b.status[i] = status;
  b.head[i] = head;
  b.body[i] = body;
  b.ascii[i] = bytes === body.length;
  b.fixed[i] = fixed;
  b.headers[i] = headers;
  return true;
}
