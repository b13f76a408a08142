/**
 * The per-request evaluation context: the request as conditions and templates read it, with
 * lazily parsed query and JSON body, and injectable randomness (X-Mockyard-Seed makes it
 * deterministic).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { RENDER_LIMIT } from './template.js';
import type { EvalContext, GraphqlRequestView, RequestView, VarValue } from './types.js';

const EMPTY: Record<string, string> = Object.freeze(Object.create(null));
/** The storage a request sees when its endpoint's storage was not loaded (nothing reads it). */
const NO_STORAGE: ReadonlyMap<string, string> = new Map();

/** Headers node keeps only the first of (`matchKnownFields` in node's `_http_incoming.js`). */
const FIRST_ONLY = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);

/**
 * Raw header lines (name, value, name, value…) as one string per lower-case name, by node's rules for
 * `req.headers`: of a header node keeps once, the first; repeated cookies joined with "; ", any other
 * repeat (set-cookie, which node keeps as an array, included) with ", ". The request view and the
 * request log both flatten with this.
 */
export function headersFromRaw(raw: readonly string[]): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const k = raw[i].toLowerCase();
    const prev = out[k];
    if (prev === undefined) out[k] = raw[i + 1];
    else if (!FIRST_ONLY.has(k)) out[k] = `${prev}${k === 'cookie' ? '; ' : ', '}${raw[i + 1]}`;
  }
  return out;
}

function decodeForm(s: string): string {
  if (s.indexOf('%') === -1 && s.indexOf('+') === -1) return s;
  const t = s.replaceAll('+', ' ');
  try {
    return decodeURIComponent(t);
  } catch {
    // a malformed escape: decode what URLSearchParams would (it keeps bad escapes as they are)
    return new URLSearchParams(`x=${s}`).get('x') ?? t;
  }
}

/**
 * Visits the non-empty `&`-separated pairs of a raw query in order: the pair is raw[start, end), its
 * key raw[start, keyEnd) (keyEnd = end when there is no `=`). Stops when `visit` returns true.
 */
function eachPair(raw: string, visit: (start: number, keyEnd: number, end: number) => boolean | undefined): void {
  let start = 0;
  while (start <= raw.length) {
    let end = raw.indexOf('&', start);
    if (end === -1) end = raw.length;
    if (end > start) {
      const eq = raw.indexOf('=', start);
      if (visit(start, eq !== -1 && eq < end ? eq : end, end)) return;
    }
    start = end + 1;
  }
}

/** First value of each parameter, decoded like URLSearchParams (application/x-www-form-urlencoded). */
export function parseQuery(raw: string, into: Record<string, string>): void {
  eachPair(raw, (start, keyEnd, end) => {
    const k = decodeForm(raw.slice(start, keyEnd));
    if (!(k in into)) into[k] = keyEnd === end ? '' : decodeForm(raw.slice(keyEnd + 1, end));
    return false;
  });
}

export class MockRequestView implements RequestView {
  readonly method: string;
  readonly path: string;
  readonly rawQuery: string;
  body = '';
  params: Record<string, string> = EMPTY;
  private parsedQuery: Record<string, string> | null = null;
  private flat: Record<string, string> | null = null;

  /**
   * `nodeHeaders` and `rawHeaders`: node's `req.headers` and `req.rawHeaders`. One header is read from
   * the first; all of them are flattened from the second when first asked for.
   */
  constructor(
    method: string,
    path: string,
    rawQuery: string,
    private readonly nodeHeaders: IncomingHttpHeaders,
    private readonly rawHeaders: readonly string[],
  ) {
    this.method = method;
    this.path = path;
    this.rawQuery = rawQuery;
  }

  get headers(): Record<string, string> {
    if (this.flat === null) this.flat = headersFromRaw(this.rawHeaders);
    return this.flat;
  }

  queryParam(name: string): string | undefined {
    const raw = this.rawQuery;
    if (this.parsedQuery !== null || raw.includes('%') || raw.includes('+')) {
      const q = this.query;
      return Object.hasOwn(q, name) ? q[name] : undefined;
    }
    // nothing to decode: the first `name` or `name=value` pair, found in place
    let found: string | undefined;
    eachPair(raw, (start, keyEnd, end) => {
      if (keyEnd - start !== name.length || !raw.startsWith(name, start)) return false;
      found = keyEnd === end ? '' : raw.slice(keyEnd + 1, end);
      return true;
    });
    return found;
  }

  header(name: string): string | undefined {
    if (this.flat !== null) return Object.hasOwn(this.flat, name) ? this.flat[name] : undefined;
    if (!Object.hasOwn(this.nodeHeaders, name)) return undefined;
    const v = this.nodeHeaders[name];
    // node's only array is set-cookie, joined as headersFromRaw joins it
    return Array.isArray(v) ? v.join(', ') : v;
  }

  get query(): Record<string, string> {
    if (this.parsedQuery === null) {
      const q: Record<string, string> = Object.create(null);
      if (this.rawQuery) parseQuery(this.rawQuery, q);
      this.parsedQuery = q;
    }
    return this.parsedQuery;
  }
}

/** mulberry32: a small seeded PRNG, good enough for reproducible mocks (not for secrets). */
export function seededRng(seed: string): () => number {
  let h = 1779033703 ^ seed.length;
  for (let i = 0; i < seed.length; i++) {
    h = Math.imul(h ^ seed.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function uuidFrom(rng: () => number): string {
  const b = new Array<number>(16);
  for (let i = 0; i < 16; i++) b[i] = Math.floor(rng() * 256);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export class MockContext implements EvalContext {
  readonly req: MockRequestView;
  private varMap: Map<string, VarValue> | null = null;
  /** set by the engine when the endpoint's storage is loaded */
  storage = NO_STORAGE as Map<string, string>;
  /** set by the engine when the project's storage is loaded */
  projectStorage = NO_STORAGE as Map<string, string>;
  /** set by the engine when a template reads collection counts */
  collectionCounts: Map<string, number> | undefined = undefined;
  /** set by the engine when a template lists collection items */
  collectionItems: Map<string, readonly unknown[]> | undefined = undefined;
  /** the project's config variables */
  config: ReadonlyMap<string, string> | undefined = undefined;
  /** a GraphQL endpoint's request (runtime/graphql/request.ts) */
  graphql: (() => GraphqlRequestView | null) | undefined = undefined;
  /** the WebSocket message being answered (runtime/ws/handler.ts) */
  message: { readonly text: string; json(): unknown } | undefined = undefined;
  readonly rng: () => number;
  /** X-Mockyard-Seed was sent: `rng` is the seeded one */
  readonly seeded: boolean;
  private jsonCache: { ok: true; value: unknown } | { ok: false } | null = null;
  readonly renderLimit: number;
  iterationLimit: number | undefined = undefined;
  regexMs = 0;
  stream: { index: number; round: number } | undefined = undefined;

  constructor(req: MockRequestView, seed: string | null, rng: () => number = Math.random, renderLimit = RENDER_LIMIT) {
    this.req = req;
    this.renderLimit = renderLimit;
    this.seeded = seed !== null;
    this.rng = seed !== null ? seededRng(seed) : rng;
  }

  /** request-scoped variables, made when first used */
  get vars(): Map<string, VarValue> {
    if (this.varMap === null) this.varMap = new Map();
    return this.varMap;
  }

  now(): number {
    return Date.now();
  }

  uuid(): string {
    return this.seeded ? uuidFrom(this.rng) : randomUUID();
  }

  json(): { ok: true; value: unknown } | { ok: false } {
    if (this.jsonCache === null) {
      const body = this.req.body;
      if (body.length === 0) this.jsonCache = { ok: false };
      else {
        try {
          this.jsonCache = { ok: true, value: JSON.parse(body) };
        } catch {
          this.jsonCache = { ok: false };
        }
      }
    }
    return this.jsonCache;
  }
}

/** A context with no request, for rendering a collection's seed outside a mock request. */
export function seedContext(): MockContext {
  return new MockContext(new MockRequestView('GET', '/', '', {}, []), null);
}
