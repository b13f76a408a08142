/** Template helpers: lists and objects, template variables, the request as Mockoon reads it, JWTs (docs/templates.md). */
import { type HelperSpec, pure } from './helper-types.js';
import { same } from './helpers-logic.js';
import { jsonPathRead } from './json-path-lite.js';
import { forbidden, isPlainObject, type RenderState, str, toList, toNumber, toText, walk } from './values.js';

const list = (v: unknown): readonly unknown[] => toList(v);

function compareValues(a: unknown, b: unknown): number {
  const x = toNumber(a);
  const y = toNumber(b);
  if (!Number.isNaN(x) && !Number.isNaN(y)) return x - y;
  const s = toText(a);
  const t = toText(b);
  return s < t ? -1 : s > t ? 1 : 0;
}

/** A copy of an object without the keys that could reach a prototype. */
function safeObject(entries: Iterable<readonly [string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) if (!forbidden(k)) out[k] = v;
  return out;
}

function matchesFilter(item: unknown, f: unknown): boolean {
  if (isPlainObject(f)) return Object.entries(f).every(([k, v]) => same(walk(item, k.split('.')), v));
  return same(item, f);
}

export const ARRAY_HELPERS: readonly HelperSpec[] = [
  pure(
    'arrays',
    'array',
    'array a b…',
    'A list of the values.',
    '{{stringify (array 1 "a" true)}}',
    '[1,"a",true]',
    (args) => [...args],
  ),
  pure(
    'arrays',
    'first',
    'first list [n]',
    'The first item (or a list of the first n).',
    '{{first (array "a" "b")}}',
    'a',
    ([l, n]) => (n === undefined ? list(l)[0] : list(l).slice(0, Math.trunc(toNumber(n)))),
  ),
  pure(
    'arrays',
    'last',
    'last list [n]',
    'The last item (or a list of the last n).',
    '{{last (array "a" "b")}}',
    'b',
    ([l, n]) => {
      const items = list(l);
      return n === undefined
        ? items[items.length - 1]
        : items.slice(Math.max(0, items.length - Math.trunc(toNumber(n))));
    },
  ),
  pure(
    'arrays',
    'slice',
    'slice list from [to]',
    'Part of a list (or text).',
    '{{join (slice (array 1 2 3 4) 1 3) ","}}',
    '2,3',
    ([l, a, b]) => {
      const from = Math.trunc(toNumber(a)) || 0;
      const to = b === undefined ? undefined : Math.trunc(toNumber(b));
      return typeof l === 'string' && !l.startsWith('[') ? l.slice(from, to) : list(l).slice(from, to);
    },
  ),
  pure(
    'arrays',
    'sort',
    'sort list [key] [order]',
    'Sorted (numbers as numbers), by a key of each item when given; order "desc" reverses.',
    '{{join (sort (array 3 1 2)) ","}}',
    '1,2,3',
    ([l, key, order]) => {
      const k = typeof key === 'string' && key !== 'asc' && key !== 'desc' ? key.split('.') : null;
      const desc = order === 'desc' || key === 'desc';
      const out = [...list(l)].sort((a, b) => (k ? compareValues(walk(a, k), walk(b, k)) : compareValues(a, b)));
      return desc ? out.reverse() : out;
    },
    ['sortBy'],
  ),
  pure(
    'arrays',
    'reverse',
    'reverse list',
    'In reverse order (a text reversed).',
    '{{join (reverse (array 1 2 3)) ""}}',
    '321',
    ([l]) => (typeof l === 'string' && !l.startsWith('[') ? [...l].reverse().join('') : [...list(l)].reverse()),
  ),
  pure(
    'arrays',
    'filter',
    'filter list match…',
    'The items equal to a value, or whose keys equal an object\'s (`(object status="open")`); several matches are alternatives.',
    '{{len (filter (array 1 2 1) 1)}}',
    '2',
    ([l, ...fs]) => list(l).filter((item) => fs.some((f) => matchesFilter(item, f))),
  ),
  pure(
    'arrays',
    'pluck',
    'pluck list key',
    'The value of one key of each item.',
    '{{join (pluck (array (object id=1) (object id=2)) "id") ","}}',
    '1,2',
    ([l, key]) => list(l).map((item) => walk(item, str(key).split('.'))),
  ),
  pure(
    'arrays',
    'keys',
    'keys object',
    'The keys of an object.',
    '{{join (keys (object a=1 b=2)) ","}}',
    'a,b',
    ([o]) => (isPlainObject(o) ? Object.keys(o) : Array.isArray(o) ? o.map((_, i) => i) : []),
  ),
  pure(
    'arrays',
    'values',
    'values object',
    'The values of an object.',
    '{{join (values (object a=1 b=2)) ","}}',
    '1,2',
    ([o]) => (isPlainObject(o) ? Object.values(o) : Array.isArray(o) ? [...o] : []),
  ),
  pure(
    'arrays',
    'object',
    'object key=value…',
    'An object of the hash arguments.',
    '{{stringify (object id=7 name="Ada")}}',
    '{"id":7,"name":"Ada"}',
    (_args, hash) => safeObject(Object.entries(hash)),
  ),
  pure(
    'arrays',
    'merge',
    'merge object object…',
    'The objects merged, later keys winning.',
    '{{stringify (merge (object a=1) (object b=2))}}',
    '{"a":1,"b":2}',
    (args) => safeObject(args.filter(isPlainObject).flatMap((o) => Object.entries(o))),
    ['objectMerge', 'assign'],
  ),
  pure(
    'arrays',
    'arrayAdd',
    'arrayAdd list value',
    'The list with the value appended (WireMock).',
    '{{join (arrayAdd (array 1) 2) ","}}',
    '1,2',
    ([l, v]) => [...list(l), v],
  ),
  pure(
    'arrays',
    'arrayRemove',
    'arrayRemove list index',
    'The list without the item at index (WireMock).',
    '{{join (arrayRemove (array 1 2 3) 0) ","}}',
    '2,3',
    ([l, i]) => list(l).filter((_, j) => j !== Math.trunc(toNumber(i))),
  ),
  pure(
    'arrays',
    'val',
    'val value [default]',
    'The value, or the default when absent (WireMock).',
    '{{val request.query.x "none"}}',
    'none',
    ([a, b]) => (a === undefined || a === null ? b : a),
  ),
];

function locals(st: RenderState): Map<string, unknown> {
  st.locals ??= new Map();
  return st.locals;
}

/** The request's `Authorization: Bearer` token. */
function bearer(st: RenderState): string | undefined {
  const h = st.ctx.req.header('authorization');
  const m = h === undefined ? null : /^Bearer\s+(\S+)/i.exec(h);
  return m ? m[1] : undefined;
}

/** One part of a JWT (0: header, 1: payload), decoded without any check of its signature. */
function jwtPart(token: string | undefined, part: 0 | 1): unknown {
  const seg = token?.split('.')[part];
  if (seg === undefined || seg.length > 64 * 1024) return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(seg, 'base64url').toString('utf8'));
    return isPlainObject(v) ? safeObject(Object.entries(v)) : undefined;
  } catch {
    return undefined;
  }
}

function jwtHelper(part: 0 | 1) {
  return (args: readonly unknown[], _hash: unknown, st: RenderState): unknown => {
    // (token, key) | (token) | (key) | ()
    let token: string | undefined;
    let key: unknown;
    if (args.length >= 2) [token, key] = [str(args[0]), args[1]];
    else if (typeof args[0] === 'string' && args[0].split('.').length === 3) token = args[0];
    else key = args[0];
    const v = jwtPart(token ?? bearer(st), part);
    return key === undefined ? v : walk(v, str(key).split('.'));
  };
}

/** `body 'a.b'` / `body '$.a[0]'`: Mockoon's paths (dots or JSONPath) into the parsed body. */
function bodyAt(st: RenderState, path: unknown): unknown {
  const doc = st.ctx.json();
  if (path === undefined || path === '') return doc.ok ? doc.value : st.ctx.req.body;
  if (!doc.ok) return undefined;
  const p = str(path);
  return p.startsWith('$') ? jsonPathRead(doc.value, p) : walk(doc.value, p.split('.'));
}

const orDefault = (v: unknown, d: unknown) => (v === undefined || v === '' ? d : v);

function cookie(st: RenderState, name: string): string | undefined {
  const header = st.ctx.req.header('cookie');
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const raw = part.slice(eq + 1).trim();
      try {
        return decodeURIComponent(raw);
      } catch {
        return raw;
      }
    }
  }
  return undefined;
}

export { cookie as requestCookie };

const req = (
  name: string,
  signature: string,
  description: string,
  example: string,
  output: string,
  fn: HelperSpec['fn'],
  aliases?: readonly string[],
): HelperSpec => ({
  name,
  family: 'request',
  signature,
  description,
  example,
  output,
  fn,
  aliases,
});

export const VARIABLE_HELPERS: readonly HelperSpec[] = [
  {
    name: 'setVar',
    family: 'variables',
    signature: 'setVar name value',
    description: 'Keeps a value for the rest of this render (read with getVar or `@name`); renders nothing.',
    example: '{{setVar "n" 5}}{{getVar "n"}}{{@n}}',
    output: '55',
    aliases: ['setGlobalVar'],
    fn: ([n, v], _h, st) => {
      if (n !== undefined && !forbidden(str(n))) locals(st).set(str(n), v);
      return undefined;
    },
  },
  {
    name: 'getVar',
    family: 'variables',
    signature: 'getVar name',
    description: 'A value kept with setVar.',
    example: '{{setVar "who" "Ada"}}{{getVar "who"}}',
    output: 'Ada',
    aliases: ['getGlobalVar'],
    fn: ([n], _h, st) => st.locals?.get(str(n)),
  },
  {
    name: 'jwtPayload',
    family: 'variables',
    signature: 'jwtPayload [token] [key]',
    description:
      "The payload of the request's bearer token (or the token given), or one key of it; decoded, not verified.",
    example: '{{jwtPayload "eyJhbGciOiJub25lIn0.eyJyb2xlIjoiYWRtaW4ifQ." "role"}}',
    output: 'admin',
    fn: jwtHelper(1),
    aliases: ['jwt'],
  },
  {
    name: 'jwtHeader',
    family: 'variables',
    signature: 'jwtHeader [token] [key]',
    description: 'The header of the bearer token (or the token given), or one key of it.',
    example: '{{jwtHeader "eyJhbGciOiJub25lIn0.eyJyb2xlIjoiYWRtaW4ifQ." "alg"}}',
    output: 'none',
    fn: jwtHelper(0),
  },
  req(
    'body',
    'body [path] [default]',
    "The request's JSON body, or the value at a dot path or JSONPath in it (Mockoon).",
    '{{body "a.b" "none"}}',
    'none',
    ([p, d], _h, st) => orDefault(bodyAt(st, p), d),
    ['bodyRaw'],
  ),
  req(
    'queryParam',
    'queryParam name [default]',
    'A query parameter (Mockoon).',
    '{{queryParam "page" "1"}}',
    '1',
    ([n, d], _h, st) => orDefault(st.ctx.req.queryParam(str(n)), d),
    ['queryParamRaw'],
  ),
  req(
    'urlParam',
    'urlParam name',
    'A path parameter (`:id`) (Mockoon).',
    '[{{urlParam "id"}}]',
    '[]',
    ([n], _h, st) => {
      const params = st.ctx.req.params;
      const k = str(n);
      return Object.hasOwn(params, k) ? params[k] : undefined;
    },
  ),
  req(
    'header',
    'header name [default]',
    'A request header (Mockoon).',
    '{{header "x-none" "no"}}',
    'no',
    ([n, d], _h, st) => orDefault(st.ctx.req.header(str(n).toLowerCase()), d),
  ),
  req(
    'cookie',
    'cookie name [default]',
    'A request cookie (Mockoon).',
    '{{cookie "sid" "none"}}',
    'none',
    ([n, d], _h, st) => orDefault(cookie(st, str(n)), d),
  ),
  req('method', 'method', 'The request method (Mockoon).', '{{method}}', 'POST', (_a, _h, st) => st.ctx.req.method),
  req('hostname', 'hostname', 'The Host the request was sent to, without port.', '[{{hostname}}]', '[]', (_a, _h, st) =>
    st.ctx.req.header('host')?.replace(/:\d+$/, ''),
  ),
];
