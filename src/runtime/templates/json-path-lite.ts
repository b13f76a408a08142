/**
 * The JSONPath subset of the `jsonPath` helper (docs/templates.md): `$`, `.key`, `['key']`, `[n]`
 * (negative from the end), `[*]` / `.*`, `..key` (descendants), `[?(@.key == 'v')]` (also `!=`, and
 * a bare `@.key` for presence). A path without a wildcard, descent or filter gives one value; one with
 * them gives the list of what it found. Keys that reach a prototype give nothing.
 */
import { forbidden, isPlainObject, str } from './values.js';

type Sel =
  | { readonly t: 'key'; readonly k: string }
  | { readonly t: 'index'; readonly i: number }
  | { readonly t: 'all' }
  | { readonly t: 'deep'; readonly k: string }
  | { readonly t: 'filter'; readonly k: string; readonly op: '==' | '!=' | 'exists'; readonly v: string };

const FILTER_RE = /^\?\(@\.([\w$-]+)\s*(?:(==|!=)\s*(?:'([^']*)'|"([^"]*)"|(-?[\w.]+)))?\s*\)$/;
/** at most this many values are gathered, and this deep */
const MAX_RESULTS = 10_000;
const MAX_DEPTH = 64;

function parse(path: string): Sel[] | null {
  let p = path.trim();
  if (p.startsWith('$')) p = p.slice(1);
  const out: Sel[] = [];
  let i = 0;
  while (i < p.length) {
    if (p.startsWith('..', i)) {
      const m = /^[\w$-]+|\*/.exec(p.slice(i + 2));
      if (!m) return null;
      out.push(m[0] === '*' ? { t: 'all' } : { t: 'deep', k: m[0] });
      i += 2 + m[0].length;
    } else if (p[i] === '.') {
      const m = /^[\w$-]+|\*/.exec(p.slice(i + 1));
      if (!m) return null;
      out.push(m[0] === '*' ? { t: 'all' } : { t: 'key', k: m[0] });
      i += 1 + m[0].length;
    } else if (p[i] === '[') {
      const end = p.indexOf(']', i);
      if (end < 0) return null;
      const inner = p.slice(i + 1, end).trim();
      const quoted = /^'([^']*)'$|^"([^"]*)"$/.exec(inner);
      const filter = FILTER_RE.exec(inner);
      if (inner === '*') out.push({ t: 'all' });
      else if (/^-?[0-9]+$/.test(inner)) out.push({ t: 'index', i: Number(inner) });
      else if (quoted) out.push({ t: 'key', k: quoted[1] ?? quoted[2] });
      else if (filter)
        out.push({
          t: 'filter',
          k: filter[1],
          op: (filter[2] as '==' | '!=' | undefined) ?? 'exists',
          v: filter[3] ?? filter[4] ?? filter[5] ?? '',
        });
      else return null;
      i = end + 1;
    } else {
      // a bare first key: `items[0]`
      const m = /^[\w$-]+/.exec(p.slice(i));
      if (!m || out.length > 0) return null;
      out.push({ t: 'key', k: m[0] });
      i += m[0].length;
    }
  }
  return out;
}

function own(v: unknown, k: string): unknown {
  if (forbidden(k) || v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  return Object.hasOwn(v, k) ? (v as Record<string, unknown>)[k] : undefined;
}

function children(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  return isPlainObject(v) ? Object.values(v) : [];
}

function descendants(v: unknown, k: string, out: unknown[], depth: number): void {
  if (depth > MAX_DEPTH || out.length >= MAX_RESULTS) return;
  const hit = own(v, k);
  if (hit !== undefined) out.push(hit);
  for (const c of children(v)) descendants(c, k, out, depth + 1);
}

function apply(values: unknown[], s: Sel): unknown[] {
  const out: unknown[] = [];
  for (const v of values) {
    if (out.length >= MAX_RESULTS) break;
    switch (s.t) {
      case 'key': {
        const x = own(v, s.k);
        if (x !== undefined) out.push(x);
        break;
      }
      case 'index':
        if (Array.isArray(v)) {
          const x = v[s.i < 0 ? v.length + s.i : s.i];
          if (x !== undefined) out.push(x);
        }
        break;
      case 'all':
        out.push(...children(v));
        break;
      case 'deep':
        descendants(v, s.k, out, 0);
        break;
      case 'filter':
        for (const c of children(v)) {
          const x = own(c, s.k);
          const keep = s.op === 'exists' ? x !== undefined : (x !== undefined && str(x) === s.v) === (s.op === '==');
          if (keep) out.push(c);
        }
        break;
    }
  }
  return out;
}

/** The value(s) at `path` in `root` (see the module comment); absent when nothing is found. */
export function jsonPathRead(root: unknown, path: string): unknown {
  const sels = parse(path);
  if (sels === null || root === undefined) return undefined;
  let values: unknown[] = [root];
  for (const s of sels) values = apply(values, s);
  const many = sels.some((s) => s.t === 'all' || s.t === 'deep' || s.t === 'filter');
  return many ? values : values[0];
}
