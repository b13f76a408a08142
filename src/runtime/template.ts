/**
 * Template compiler: `"Hello {{request.query.name}}"` → `(ctx) => string`, compiled once when a rule or
 * endpoint is saved. Rendering only walks precomputed getters: no parsing, no regex, no `eval`.
 *
 * Syntax (docs/templates.md):
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
import { callFaker } from './faker.js';
import { compilePathSegments, readJsonPath, renderJsonValue } from './json-path.js';
import { INT_RE, type Node, parseTemplate } from './template-parse.js';
import type { EvalContext, SavedResponse } from './types.js';

export { compileJsonPath, type JsonPathSegment, readJsonPath, renderJsonValue } from './json-path.js';

/** Characters one rendered template may hold unless the context says otherwise (docs/limits.md). */
export const RENDER_LIMIT = 1024 * 1024;

/**
 * A template rendered past its context's limit: rendering stops. An action fails with its onError,
 * an answer becomes `500 render_too_large` (docs/limits.md). Also thrown for the other caps of one
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
      if (node.name === 'faker') return compileFaker(node.args);
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
  if (root === 'collection' && segs.length === 3 && segs[2] === 'count') {
    const name = segs[1];
    return getter((ctx) => ctx.collectionCounts?.get(name)?.toString());
  }
  if (root === 'stream' && segs.length === 2 && (second === 'index' || second === 'round')) {
    // the event being written and the repetition of a step's `events` (src/runtime/stream.ts)
    return getter((ctx) => ctx.stream?.[second].toString());
  }
  if (root === 'project' && segs.length >= 2) {
    const name = segs.slice(1).join('.');
    return getter((ctx) => ctx.projectStorage.get(name));
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

/**
 * `faker "module.method" ARG…`: the path a string literal, the arguments JSON literals, strings or
 * integers (faker.ts); anything else renders ''.
 */
function compileFaker(args: readonly Node[]): Compiled {
  const [path, ...rest] = args;
  if (path?.kind !== 'lit') return ABSENT;
  const values: unknown[] = [];
  for (const a of rest) {
    if (a.kind === 'json') values.push(a.value);
    else if (a.kind === 'lit') values.push(INT_RE.test(a.value) ? Number(a.value) : a.value);
    else return ABSENT;
  }
  const name = path.value;
  return getter((ctx) => callFaker(name, values, ctx.rng));
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

/** A template of fixed text (never parsed: `{{` in it is literal). */
export function constantTemplate(text: string): Template {
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

/** Every value path the template reads (`request.body.a`, `endpoint.x`, …), nested arguments included. */
function pathsOf(src: string): (readonly string[])[] {
  const out: (readonly string[])[] = [];
  const visit = (node: Node): void => {
    if (node.kind === 'path') out.push(node.segs);
    else if (node.kind === 'call') node.args.forEach(visit);
  };
  for (const part of parseTemplate(src)) if (typeof part !== 'string') visit(part);
  return out;
}

function someNode(src: string, pred: (segs: readonly string[]) => boolean): boolean {
  return pathsOf(src).some(pred);
}

/** True when the template reads `endpoint.*` (the engine then loads the endpoint's storage). */
export function referencesStorage(src: string): boolean {
  return someNode(src, (segs) => segs[0] === 'endpoint' && segs.length >= 2);
}

/** True when the template calls faker (the project waits for faker to load before it is served). */
export function usesFaker(src: string): boolean {
  const visit = (node: Node): boolean => node.kind === 'call' && (node.name === 'faker' || node.args.some(visit));
  return parseTemplate(src).some((part) => typeof part !== 'string' && visit(part));
}

/** The collections whose count the template reads (`{{collection.NAME.count}}`). */
export function countedCollections(src: string): string[] {
  return pathsOf(src)
    .filter((segs) => segs[0] === 'collection' && segs.length === 3 && segs[2] === 'count')
    .map((segs) => segs[1]);
}

/** True when the template reads `project.*` (the engine then loads the project's storage). */
export function referencesProjectStorage(src: string): boolean {
  return someNode(src, (segs) => segs[0] === 'project' && segs.length >= 2);
}

/** True when the template reads `request.body` or `request.body.*`. */
export function referencesBody(src: string): boolean {
  return someNode(src, (segs) => segs[0] === 'request' && segs[1] === 'body');
}
