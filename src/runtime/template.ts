/**
 * Template compiler: `"Hello {{request.query.name}}"` → `(ctx) => string`, compiled once when a rule or
 * endpoint is saved. Rendering only walks precomputed getters: no parsing, no regex, no `eval`.
 *
 * Syntax (CONTRACT §5 "Templates"):
 * - `{{ expr }}` with optional spaces inside the braces. An unclosed `{{` is literal text. In a run of
 *   braces the expression opens at the last two (`{{{x}}}` renders `{` + x + `}`), and a `}}` closes the
 *   nearest `{{` before it (`{{ a {{x}}` renders `{{ a ` + x).
 * - Values: `vars.NAME` (`.status`, `.headers.H`, `.body`, `.body.PATH` of a saved response; alone it renders
 *   the body), `endpoint.NAME`, `request.method|path|body`, `request.params|query|headers.NAME`,
 *   `request.body.DOT.PATH`, `$uuid`, `$timestamp`, `$isoDate ["+1d"|"-2h"|"+30m"|"+10s"]`,
 *   `$randomInt MIN MAX` (inclusive; swapped when MIN > MAX).
 * - Helpers: `json EXPR` (JSON-string-escaped, no quotes), `default EXPR FALLBACK` (FALLBACK when EXPR is absent
 *   or ''). Arguments are paths, `"strings"` (with `\"` and `\\`), integers, or `( nested expr )`.
 * - Anything unknown, absent, malformed or of the wrong arity renders ''. Names are data: they are looked up
 *   with `Map#get` / `Object.hasOwn`, never through a prototype chain.
 */
import type { EvalContext, SavedResponse } from './types.js';

/** Characters one rendered template may hold unless the context says otherwise (CONTRACT §10). */
export const RENDER_LIMIT = 1024 * 1024;

/**
 * A template rendered past its context's limit: rendering stops. An action fails with its onError,
 * an answer becomes `500 render_too_large` (CONTRACT §10). Also thrown for the other caps of one
 * request's output and state (`value_too_large`, `too_many_names`).
 */
export class CapExceeded extends Error {
  constructor(
    readonly code: 'render_too_large' | 'value_too_large' | 'too_many_names',
    message: string,
  ) {
    super(message);
    this.name = 'CapExceeded';
  }
}

function tooLarge(limit: number): CapExceeded {
  return new CapExceeded('render_too_large', `render_too_large: a template rendered more than ${limit} characters`);
}

export type Template = ((ctx: EvalContext) => string) & { readonly constant?: string };

/** A compiled value: `undefined` means absent (rendered as ''). */
type Getter = (ctx: EvalContext) => string | undefined;
/** Either a value known at compile time, or a getter. */
type Compiled =
  | { readonly constant: true; readonly value: string | undefined }
  | { readonly constant: false; readonly get: Getter };

// ---------------------------------------------------------------------------------------------
// JSON paths (shared with conditions.ts for body_json)

/** One segment of a dot path, with its array index precomputed (-1: not a canonical index). */
export interface JsonPathSegment {
  readonly key: string;
  readonly index: number;
}

const INDEX_RE = /^(?:0|[1-9][0-9]{0,14})$/;

/** `items.0.name` → segments. An empty path ('') addresses the whole document. */
export function compileJsonPath(path: string): readonly JsonPathSegment[] {
  if (path === '') return [];
  return compilePathSegments(path.split('.'));
}

function compilePathSegments(keys: readonly string[]): readonly JsonPathSegment[] {
  return keys.map((key) => ({ key, index: INDEX_RE.test(key) ? Number(key) : -1 }));
}

/** The value at `path` in a parsed JSON document, or `undefined` when a segment is missing (own keys only). */
export function readJsonPath(root: unknown, path: readonly JsonPathSegment[]): unknown {
  let cur = root;
  for (let i = 0; i < path.length; i++) {
    if (cur === null || typeof cur !== 'object') return undefined;
    const seg = path[i];
    if (Array.isArray(cur)) {
      if (seg.index < 0 || seg.index >= cur.length) return undefined;
      cur = cur[seg.index];
    } else {
      if (!Object.hasOwn(cur, seg.key)) return undefined;
      cur = (cur as Record<string, unknown>)[seg.key];
    }
  }
  return cur;
}

/** CONTRACT body_json rendering: strings as is, numbers/booleans/null as JSON text, objects/arrays compact JSON. */
export function renderJsonValue(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

/** Parsed bodies of saved responses, so `{{vars.r.body.a}}` and `{{vars.r.body.b}}` parse once. */
const savedJson = new WeakMap<SavedResponse, { ok: boolean; value: unknown }>();

function savedResponseJson(r: SavedResponse): { ok: boolean; value: unknown } {
  let parsed = savedJson.get(r);
  if (parsed === undefined) {
    try {
      parsed = r.body === '' ? { ok: false, value: undefined } : { ok: true, value: JSON.parse(r.body) };
    } catch {
      parsed = { ok: false, value: undefined };
    }
    savedJson.set(r, parsed);
  }
  return parsed;
}

// ---------------------------------------------------------------------------------------------
// Parsing: template text → parts, expression text → AST

type Node =
  | { readonly kind: 'lit'; readonly value: string }
  | { readonly kind: 'path'; readonly segs: readonly string[] }
  | { readonly kind: 'call'; readonly name: string; readonly args: readonly Node[] }
  | { readonly kind: 'invalid' };

type Part = string | Node;

const INVALID: Node = { kind: 'invalid' };
const INT_RE = /^-?[0-9]{1,15}$/;
const HELPERS = new Set(['json', 'default', '$uuid', '$timestamp', '$isoDate', '$randomInt']);
/** Helpers that may appear bare as an argument (`json $uuid`). */
const NULLARY = new Set(['$uuid', '$timestamp', '$isoDate']);

/** Splits template text into literal strings and expression nodes. */
function parseTemplate(src: string): Part[] {
  const parts: Part[] = [];
  let lit = '';
  let pos = 0;
  while (pos < src.length) {
    const close = src.indexOf('}}', pos);
    if (close < 0) break;
    const open = close - 2 >= pos ? src.lastIndexOf('{{', close - 2) : -1;
    if (open < pos) {
      // a `}}` with no `{{` before it: literal
      lit += src.slice(pos, close + 2);
      pos = close + 2;
      continue;
    }
    lit += src.slice(pos, open);
    if (lit !== '') parts.push(lit);
    lit = '';
    parts.push(parseExpression(src.slice(open + 2, close)));
    pos = close + 2;
  }
  lit += src.slice(pos);
  if (lit !== '') parts.push(lit);
  return parts;
}

type Token =
  | { readonly t: 'word'; readonly v: string }
  | { readonly t: 'str'; readonly v: string }
  | { readonly t: '(' }
  | { readonly t: ')' };

function isSpace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r';
}

function tokenize(s: string): Token[] | null {
  const out: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const ch = s[i];
    if (isSpace(ch)) {
      i++;
    } else if (ch === '(' || ch === ')') {
      out.push({ t: ch });
      i++;
    } else if (ch === '"') {
      let v = '';
      i++;
      for (;;) {
        if (i >= s.length) return null; // unterminated string literal
        const c = s[i];
        if (c === '"') break;
        if (c === '\\' && (s[i + 1] === '"' || s[i + 1] === '\\')) {
          v += s[i + 1];
          i += 2;
        } else {
          v += c;
          i++;
        }
      }
      i++;
      out.push({ t: 'str', v });
    } else {
      const start = i;
      while (i < s.length && !isSpace(s[i]) && s[i] !== '"' && s[i] !== '(' && s[i] !== ')') i++;
      out.push({ t: 'word', v: s.slice(start, i) });
    }
  }
  return out;
}

function parseExpression(text: string): Node {
  const tokens = tokenize(text);
  if (tokens === null) return INVALID;
  const state = { i: 0 };
  const node = parseSequence(tokens, state);
  return state.i === tokens.length ? node : INVALID;
}

/** Parses items up to a `)` or the end: a helper call, or a single value. */
function parseSequence(tokens: readonly Token[], state: { i: number }): Node {
  const items: Node[] = [];
  let head: string | null = null;
  while (state.i < tokens.length) {
    const tok = tokens[state.i];
    if (tok.t === ')') break;
    state.i++;
    if (tok.t === '(') {
      items.push(parseSequence(tokens, state));
      if (tokens[state.i]?.t !== ')') return INVALID;
      state.i++;
    } else if (tok.t === 'str') {
      items.push({ kind: 'lit', value: tok.v });
    } else if (items.length === 0 && HELPERS.has(tok.v)) {
      head = tok.v;
      items.push(INVALID); // placeholder for the head
    } else {
      items.push(atom(tok.v));
    }
  }
  if (head !== null) return { kind: 'call', name: head, args: items.slice(1) };
  return items.length === 1 ? items[0] : INVALID;
}

function atom(word: string): Node {
  if (NULLARY.has(word)) return { kind: 'call', name: word, args: [] };
  if (INT_RE.test(word)) return { kind: 'lit', value: String(Number(word)) };
  return { kind: 'path', segs: word.split('.') };
}

// ---------------------------------------------------------------------------------------------
// Compiling: AST → getters

const ABSENT: Compiled = { constant: true, value: undefined };
const constant = (value: string | undefined): Compiled => ({ constant: true, value });
const getter = (get: Getter): Compiled => ({ constant: false, get });
const asGetter = (c: Compiled): Getter => {
  if (!c.constant) return c.get;
  const v = c.value;
  return () => v;
};

function compileNode(node: Node): Compiled {
  switch (node.kind) {
    case 'lit':
      return constant(node.value);
    case 'path':
      return compilePath(node.segs);
    case 'call':
      return compileCall(node.name, node.args.map(compileNode));
    default:
      return ABSENT;
  }
}

function compilePath(segs: readonly string[]): Compiled {
  const [root, second] = segs;
  if (root === 'vars' && segs.length >= 2) return compileVar(second, segs.slice(2));
  if (root === 'endpoint' && segs.length >= 2) {
    const name = segs.slice(1).join('.');
    return getter((ctx) => ctx.storage.get(name));
  }
  if (root !== 'request') return ABSENT;
  if (segs.length === 2) {
    if (second === 'method') return getter((ctx) => ctx.req.method);
    if (second === 'path') return getter((ctx) => ctx.req.path);
    if (second === 'body') return getter((ctx) => ctx.req.body);
    return ABSENT;
  }
  if (segs.length < 3) return ABSENT;
  const rest = segs.slice(2);
  if (second === 'body') {
    const path = compilePathSegments(rest);
    return getter((ctx) => {
      const doc = ctx.json();
      return doc.ok ? renderJsonValue(readJsonPath(doc.value, path)) : undefined;
    });
  }
  const name = rest.join('.');
  if (second === 'params') return getter((ctx) => ownString(ctx.req.params, name));
  if (second === 'query') return getter((ctx) => ctx.req.queryParam(name));
  if (second === 'headers') {
    const lower = name.toLowerCase();
    return getter((ctx) => ctx.req.header(lower));
  }
  return ABSENT;
}

function ownString(rec: Record<string, string>, key: string): string | undefined {
  return Object.hasOwn(rec, key) ? rec[key] : undefined;
}

function compileVar(name: string, rest: readonly string[]): Compiled {
  if (rest.length === 0) {
    return getter((ctx) => {
      const v = ctx.vars.get(name);
      return v === undefined || typeof v === 'string' ? v : v.body;
    });
  }
  const saved = (ctx: EvalContext): SavedResponse | undefined => {
    const v = ctx.vars.get(name);
    return v === undefined || typeof v === 'string' ? undefined : v;
  };
  const [field] = rest;
  if (field === 'status' && rest.length === 1) return getter((ctx) => saved(ctx)?.status.toString());
  if (field === 'headers' && rest.length >= 2) {
    const header = rest.slice(1).join('.').toLowerCase();
    return getter((ctx) => {
      const r = saved(ctx);
      return r === undefined ? undefined : ownString(r.headers, header);
    });
  }
  if (field === 'body') {
    if (rest.length === 1) return getter((ctx) => saved(ctx)?.body);
    const path = compilePathSegments(rest.slice(1));
    return getter((ctx) => {
      const r = saved(ctx);
      if (r === undefined) return undefined;
      const doc = savedResponseJson(r);
      return doc.ok ? renderJsonValue(readJsonPath(doc.value, path)) : undefined;
    });
  }
  return ABSENT;
}

const OFFSET_RE = /^([+-]?)([0-9]{1,12})([smhd])$/;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `"+1d"` → 86400000; NaN when malformed. */
function parseOffset(s: string): number {
  const m = OFFSET_RE.exec(s.trim());
  if (m === null) return Number.NaN;
  const ms = Number(m[2]) * UNIT_MS[m[3]];
  return m[1] === '-' ? -ms : ms;
}

function isoDate(ms: number): string | undefined {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

function parseInteger(s: string | undefined): number {
  return s !== undefined && INT_RE.test(s) ? Number(s) : Number.NaN;
}

function randomInt(ctx: EvalContext, a: number, b: number): string | undefined {
  if (Number.isNaN(a) || Number.isNaN(b)) return undefined;
  const lo = Math.min(a, b);
  const hi = Math.max(a, b);
  return Math.min(hi, lo + Math.floor(ctx.rng() * (hi - lo + 1))).toString();
}

function escapeJson(s: string | undefined): string | undefined {
  return s === undefined ? undefined : JSON.stringify(s).slice(1, -1);
}

function compileCall(name: string, args: readonly Compiled[]): Compiled {
  const [a, b] = args;
  switch (name) {
    case '$uuid':
      return args.length === 0 ? getter((ctx) => ctx.uuid()) : ABSENT;
    case '$timestamp':
      return args.length === 0 ? getter((ctx) => Math.floor(ctx.now()).toString()) : ABSENT;
    case '$isoDate': {
      if (args.length === 0) return getter((ctx) => isoDate(ctx.now()));
      if (args.length !== 1) return ABSENT;
      if (a.constant) {
        const off = a.value === undefined ? Number.NaN : parseOffset(a.value);
        return Number.isNaN(off) ? ABSENT : getter((ctx) => isoDate(ctx.now() + off));
      }
      return getter((ctx) => {
        const s = a.get(ctx);
        const off = s === undefined ? Number.NaN : parseOffset(s);
        return Number.isNaN(off) ? undefined : isoDate(ctx.now() + off);
      });
    }
    case '$randomInt': {
      if (args.length !== 2) return ABSENT;
      if (a.constant && b.constant) {
        const lo = parseInteger(a.value);
        const hi = parseInteger(b.value);
        return Number.isNaN(lo) || Number.isNaN(hi) ? ABSENT : getter((ctx) => randomInt(ctx, lo, hi));
      }
      const ga = asGetter(a);
      const gb = asGetter(b);
      return getter((ctx) => randomInt(ctx, parseInteger(ga(ctx)), parseInteger(gb(ctx))));
    }
    case 'json': {
      if (args.length !== 1) return ABSENT;
      if (a.constant) return constant(escapeJson(a.value));
      const ga = a.get;
      return getter((ctx) => escapeJson(ga(ctx)));
    }
    case 'default': {
      if (args.length !== 2) return ABSENT;
      if (a.constant) return a.value === undefined || a.value === '' ? b : a;
      const ga = a.get;
      const gb = asGetter(b);
      return getter((ctx) => {
        const v = ga(ctx);
        return v === undefined || v === '' ? gb(ctx) : v;
      });
    }
    default:
      return ABSENT;
  }
}

// ---------------------------------------------------------------------------------------------
// Public API

/** Compiles a template. Never throws; malformed expressions render ''. */
export function compileTemplate(src: string): Template {
  const pieces: (string | Getter)[] = [];
  for (const part of parseTemplate(src)) {
    const c = typeof part === 'string' ? constant(part) : compileNode(part);
    if (c.constant) {
      const text = c.value ?? '';
      const last = pieces.length - 1;
      if (last >= 0 && typeof pieces[last] === 'string') pieces[last] += text;
      else if (text !== '') pieces.push(text);
    } else {
      pieces.push(c.get);
    }
  }
  if (pieces.length === 0) return constantTemplate('');
  if (pieces.length === 1 && typeof pieces[0] === 'string') return constantTemplate(pieces[0]);
  if (pieces.length === 1) {
    const only = pieces[0] as Getter;
    return (ctx: EvalContext): string => {
      const out = safeGet(only, ctx);
      const limit = ctx.renderLimit ?? RENDER_LIMIT;
      if (out.length > limit) throw tooLarge(limit);
      return out;
    };
  }
  // an exact-size copy (push leaves room for 16 more; a project may hold thousands of templates)
  const parts = pieces.slice();
  const n = parts.length;
  return (ctx: EvalContext): string => {
    const limit = ctx.renderLimit ?? RENDER_LIMIT;
    let out = '';
    for (let i = 0; i < n; i++) {
      const p = parts[i];
      out += typeof p === 'string' ? p : safeGet(p, ctx);
      // checked as it grows: `{{vars.a}}{{vars.a}}…` stops at the limit, not after the whole text
      if (out.length > limit) throw tooLarge(limit);
    }
    return out;
  };
}

function constantTemplate(text: string): Template {
  return Object.assign((_ctx: EvalContext): string => text, { constant: text });
}

/** A getter that throws (e.g. an injected ctx.json that fails) renders '' rather than failing the answer. */
function safeGet(get: Getter, ctx: EvalContext): string {
  try {
    return get(ctx) ?? '';
  } catch {
    return '';
  }
}

function someNode(src: string, pred: (segs: readonly string[]) => boolean): boolean {
  const visit = (node: Node): boolean =>
    node.kind === 'path' ? pred(node.segs) : node.kind === 'call' ? node.args.some(visit) : false;
  return parseTemplate(src).some((part) => typeof part !== 'string' && visit(part));
}

/** True when the template reads `endpoint.*` (the engine then loads the endpoint's storage). */
export function referencesStorage(src: string): boolean {
  return someNode(src, (segs) => segs[0] === 'endpoint' && segs.length >= 2);
}

/** True when the template reads `request.body` or `request.body.*`. */
export function referencesBody(src: string): boolean {
  return someNode(src, (segs) => segs[0] === 'request' && segs[1] === 'body');
}
